#include "cli/cli_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

namespace delayq::test {
namespace {

std::vector<std::string> environment(const CliOptions& options) {
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
        const std::string entry(*e);
        const std::string name = entry.substr(0, entry.find('='));
        bool drop = false;
        for (const auto& u : options.unset) drop = drop || u == name;
        for (const auto& x : options.env) drop = drop || x.substr(0, x.find('=')) == name;
        if (!drop) env.push_back(entry);
    }
    env.insert(env.end(), options.env.begin(), options.env.end());
    return env;
}

// `script -qec` runs a shell command line: each argument single-quoted.
std::string shell_line(const std::vector<std::string>& argv) {
    std::string line;
    for (const auto& a : argv) {
        if (!line.empty()) line += ' ';
        line += '\'';
        for (char c : a) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
        line += '\'';
    }
    return line;
}

}  // namespace

std::string cli_path() { return DELAYQ_CLI; }

CliProcess::CliProcess(const std::vector<std::string>& args, CliOptions options)
    : options_(std::move(options)) {
    int in[2];
    int out[2];
    int err[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 ||
        ::pipe2(err, O_CLOEXEC) != 0) {
        throw std::runtime_error("pipe2 failed");
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], STDIN_FILENO);
    if (options_.stdout_file.empty()) {
        posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    } else {
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, options_.stdout_file.c_str(),
                                         O_WRONLY | O_CREAT | O_TRUNC, 0644);
    }
    // Nothing reads `out` then: the pump sees its end at once.
    if (!options_.stdout_file.empty() || options_.stdout_closed) {
        ::close(out[0]);
        out[0] = -1;
    }
    posix_spawn_file_actions_adddup2(&actions, err[1], STDERR_FILENO);
    std::vector<std::string> argv_strings{cli_path()};
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    if (options_.terminal) {
        argv_strings = {"/usr/bin/script", "-qec", shell_line(argv_strings), "/dev/null"};
    }
    std::vector<char*> argv;
    argv.reserve(argv_strings.size() + 1);
    for (auto& a : argv_strings) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_strings = environment(options_);
    std::vector<char*> envp;
    envp.reserve(env_strings.size() + 1);
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    const int rc = ::posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    if (rc != 0) {
        ::close(in[1]);
        if (out[0] >= 0) ::close(out[0]);
        ::close(err[0]);
        throw std::runtime_error("cannot run " + argv_strings.front());
    }
    pump_ = std::thread(
        [this, in_fd = in[1], out_fd = out[0], err_fd = err[0]] { pump(in_fd, out_fd, err_fd); });
}

CliProcess::~CliProcess() {
    if (pump_.joinable()) {
        {
            std::lock_guard lock(mutex_);
            if (!done_) ::kill(pid_, SIGKILL);
        }
        pump_.join();
    }
}

void CliProcess::signal(int sig) const { ::kill(pid_, sig); }

void CliProcess::pump(int in_fd, int out_fd, int err_fd) {
    ::signal(SIGPIPE, SIG_IGN);
    ::fcntl(in_fd, F_SETFL, ::fcntl(in_fd, F_GETFL) | O_NONBLOCK);
    const std::string& input = options_.input;
    std::size_t written = 0;
    if (input.empty()) {
        ::close(in_fd);
        in_fd = -1;
    }
    const auto deadline = std::chrono::steady_clock::now() + options_.timeout;
    bool timed_out = false;
    char buf[65536];
    while (out_fd >= 0 || err_fd >= 0) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            timed_out = true;
            ::kill(pid_, SIGKILL);
            break;
        }
        pollfd fds[3] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}, {in_fd, POLLOUT, 0}};
        if (::poll(fds, 3, static_cast<int>(std::min<long long>(left.count(), 1000))) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (in_fd >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP)) != 0) {
            const ssize_t n = ::write(in_fd, input.data() + written, input.size() - written);
            if (n > 0) written += static_cast<std::size_t>(n);
            if ((n < 0 && errno != EAGAIN) || written == input.size()) {
                ::close(in_fd);
                in_fd = -1;
            }
        }
        for (int k = 0; k < 2; ++k) {
            int& fd = k == 0 ? out_fd : err_fd;
            if (fd < 0 || (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
            const ssize_t n = ::read(fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                ::close(fd);
                fd = -1;
                continue;
            }
            std::lock_guard lock(mutex_);
            (k == 0 ? result_.out : result_.err).append(buf, static_cast<std::size_t>(n));
            cv_.notify_all();
        }
    }
    for (int fd : {in_fd, out_fd, err_fd}) {
        if (fd >= 0) ::close(fd);
    }
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    std::lock_guard lock(mutex_);
    result_.timed_out = timed_out;
    result_.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    done_ = true;
    cv_.notify_all();
}

bool CliProcess::await_output(
    const std::function<bool(const std::string&, const std::string&)>& pred,
    std::chrono::seconds timeout) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, timeout, [&] { return pred(result_.out, result_.err) || done_; }) &&
           pred(result_.out, result_.err);
}

CliResult CliProcess::wait() {
    pump_.join();
    std::lock_guard lock(mutex_);
    return result_;
}

CliResult run_cli(const std::vector<std::string>& args, CliOptions options) {
    CliProcess p(args, std::move(options));
    return p.wait();
}

}  // namespace delayq::test
