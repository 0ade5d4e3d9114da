#include "fault/worker_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace delayq::fault {

WorkerProcess::WorkerProcess(std::string name, const std::vector<std::string>& argv,
                             const std::filesystem::path& log, const std::vector<std::string>& env)
    : name_(std::move(name)), log_(log) {
    std::vector<std::string> env_strings;
    for (char** e = environ; *e != nullptr; ++e) {
        const std::string entry(*e);
        const std::string prefix = entry.substr(0, entry.find('=') + 1);
        bool replaced = false;
        for (const auto& x : env) replaced = replaced || x.rfind(prefix, 0) == 0;
        if (!replaced) env_strings.push_back(entry);
    }
    env_strings.insert(env_strings.end(), env.begin(), env.end());
    std::vector<char*> envp;
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::vector<std::string> argv_strings = argv;
    std::vector<char*> args;
    for (auto& a : argv_strings) args.push_back(a.data());
    args.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    const int rc = ::posix_spawnp(&pid_, args[0], &actions, nullptr, args.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("cannot run " + argv.front());
}

WorkerProcess::~WorkerProcess() {
    if (!exit_code_) kill();
}

bool WorkerProcess::running() { return !wait(std::chrono::milliseconds(0)).has_value(); }

void WorkerProcess::signal(int sig) const {
    if (!exit_code_) ::kill(pid_, sig);
}

void WorkerProcess::kill() {
    if (exit_code_) return;
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    exit_code_ = -1;
}

std::optional<int> WorkerProcess::wait(std::chrono::milliseconds deadline) {
    const auto end = std::chrono::steady_clock::now() + deadline;
    while (!exit_code_) {
        int status = 0;
        const pid_t r = ::waitpid(pid_, &status, WNOHANG);
        if (r == pid_) {
            exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            break;
        }
        if (std::chrono::steady_clock::now() >= end) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return exit_code_;
}

std::optional<int> WorkerProcess::terminate(std::chrono::milliseconds deadline) {
    if (exit_code_) return exit_code_;
    ::kill(pid_, SIGCONT);  // a stopped process would not act on SIGTERM
    ::kill(pid_, SIGTERM);
    if (auto code = wait(deadline)) return code;
    kill();
    return std::nullopt;
}

std::string WorkerProcess::log() const {
    std::ifstream in(log_);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace delayq::fault
