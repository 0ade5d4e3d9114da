#include "process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "fd.hpp"

namespace delayq::cli {
namespace {

constexpr std::size_t kTailBytes = 2000;
constexpr std::size_t kTailLines = 10;

// Spawn attributes every child gets: our blocked signals (consume blocks SIGINT and SIGTERM to
// wait for them on a thread) and ignored SIGPIPE would otherwise be inherited across exec.
class SpawnAttr {
  public:
    explicit SpawnAttr(bool own_process_group) {
        posix_spawnattr_init(&attr_);
        sigset_t none;
        sigemptyset(&none);
        posix_spawnattr_setsigmask(&attr_, &none);
        sigset_t defaults;
        sigemptyset(&defaults);
        for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGQUIT, SIGHUP}) sigaddset(&defaults, sig);
        posix_spawnattr_setsigdefault(&attr_, &defaults);
        short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
        if (own_process_group) {
            flags |= POSIX_SPAWN_SETPGROUP;
            posix_spawnattr_setpgroup(&attr_, 0);
        }
        posix_spawnattr_setflags(&attr_, flags);
    }
    ~SpawnAttr() { posix_spawnattr_destroy(&attr_); }
    SpawnAttr(const SpawnAttr&) = delete;
    SpawnAttr& operator=(const SpawnAttr&) = delete;
    const posix_spawnattr_t* get() const { return &attr_; }

  private:
    posix_spawnattr_t attr_{};
};

class FileActions {
  public:
    FileActions() { posix_spawn_file_actions_init(&actions_); }
    ~FileActions() { posix_spawn_file_actions_destroy(&actions_); }
    FileActions(const FileActions&) = delete;
    FileActions& operator=(const FileActions&) = delete;
    posix_spawn_file_actions_t* get() { return &actions_; }

  private:
    posix_spawn_file_actions_t actions_{};
};

std::vector<char*> c_strings(std::vector<std::string>& strings) {
    std::vector<char*> out;
    out.reserve(strings.size() + 1);
    for (auto& s : strings) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

// Our environment, with `extra` added (replacing variables of the same name).
std::vector<std::string> environment_with(const std::vector<std::string>& extra) {
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
        std::string_view entry(*e);
        bool replaced = false;
        for (const auto& x : extra) {
            auto eq = x.find('=');
            if (entry.size() > eq &&
                entry.substr(0, eq + 1) == std::string_view(x).substr(0, eq + 1)) {
                replaced = true;
            }
        }
        if (!replaced) env.emplace_back(entry);
    }
    env.insert(env.end(), extra.begin(), extra.end());
    return env;
}

void write_all(int fd, const char* data, std::size_t size) {
    while (size > 0) {
        ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;  // our stderr is gone: nothing better to do
        data += n;
        size -= static_cast<std::size_t>(n);
    }
}

// The last few lines of what a command wrote on stderr.
std::string tail_of(std::string_view text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
    std::size_t start = text.size();
    std::size_t lines = 0;
    while (start > 0) {
        const auto nl = text.rfind('\n', start - 1);
        if (nl == std::string_view::npos) {
            start = 0;
            break;
        }
        if (++lines == kTailLines) {
            start = nl + 1;
            break;
        }
        start = nl;
    }
    text.remove_prefix(start);
    if (text.size() > kTailBytes) text.remove_prefix(text.size() - kTailBytes);
    return std::string(text);
}

bool is_executable_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::optional<std::string> find_executable(std::string_view name) {
    if (name.empty()) return std::nullopt;
    if (name.find('/') != std::string_view::npos) {
        std::string path(name);
        return is_executable_file(path) ? std::optional(path) : std::nullopt;
    }
    const char* path_env = std::getenv("PATH");
    std::string_view dirs = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
    while (true) {
        auto colon = dirs.find(':');
        std::string_view dir = dirs.substr(0, colon);
        if (dir.empty()) dir = ".";
        // Views and one string built by appends: GCC 12 at -O3 warned (-Wrestrict, a false
        // positive in basic_string's inlined copies) about assigning "." to a std::string here.
        std::string candidate;
        candidate.reserve(dir.size() + 1 + name.size());
        candidate.append(dir).append(1, '/').append(name);
        if (is_executable_file(candidate)) return candidate;
        if (colon == std::string_view::npos) break;
        dirs.remove_prefix(colon + 1);
    }
    return std::nullopt;
}

std::string CommandResult::headline() const {
    if (!spawn_error.empty()) return "could not run the command: " + spawn_error;
    if (signal != 0) return "command killed by signal " + std::to_string(signal);
    return "command exited with status " + std::to_string(exit_code);
}

std::string CommandResult::describe() const {
    return stderr_tail.empty() ? headline() : headline() + ": " + stderr_tail;
}

CommandResult run_command(const std::vector<std::string>& argv, std::string_view input,
                          const std::vector<std::string>& extra_env) {
    CommandResult result;
    int in_pipe[2];
    int err_pipe[2];
    if (::pipe2(in_pipe, O_CLOEXEC) != 0) {
        result.spawn_error = std::strerror(errno);
        return result;
    }
    Fd in_read(in_pipe[0]);
    Fd in_write(in_pipe[1]);
    if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
        result.spawn_error = std::strerror(errno);
        return result;
    }
    Fd err_read(err_pipe[0]);
    Fd err_write(err_pipe[1]);

    FileActions actions;
    posix_spawn_file_actions_adddup2(actions.get(), in_read.get(), STDIN_FILENO);
    posix_spawn_file_actions_adddup2(actions.get(), err_write.get(), STDERR_FILENO);
    SpawnAttr attr(true);
    std::vector<std::string> args = argv;
    std::vector<std::string> env = environment_with(extra_env);
    auto c_args = c_strings(args);
    auto c_env = c_strings(env);
    pid_t pid = -1;
    const int rc =
        ::posix_spawnp(&pid, c_args[0], actions.get(), attr.get(), c_args.data(), c_env.data());
    in_read.reset();
    err_write.reset();
    if (rc != 0) {
        result.spawn_error = std::strerror(rc);
        return result;
    }

    ::fcntl(in_write.get(), F_SETFL, ::fcntl(in_write.get(), F_GETFL) | O_NONBLOCK);
    std::size_t written = 0;
    if (input.empty()) in_write.reset();
    std::string captured;
    char buf[4096];
    while (err_read.get() >= 0) {
        pollfd fds[2] = {{err_read.get(), POLLIN, 0}, {in_write.get(), POLLOUT, 0}};
        const nfds_t count = in_write.get() >= 0 ? 2 : 1;
        if (::poll(fds, count, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (count == 2 && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP)) != 0) {
            ssize_t n = ::write(in_write.get(), input.data() + written, input.size() - written);
            if (n > 0) written += static_cast<std::size_t>(n);
            // EPIPE: the command does not want (the rest of) its input, which is its business.
            if ((n < 0 && errno != EAGAIN && errno != EINTR) || written == input.size()) {
                in_write.reset();
            }
        }
        if ((fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
            ssize_t n = ::read(err_read.get(), buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                err_read.reset();
                break;
            }
            write_all(STDERR_FILENO, buf, static_cast<std::size_t>(n));
            captured.append(buf, static_cast<std::size_t>(n));
            if (captured.size() > 4 * kTailBytes) captured.erase(0, captured.size() - kTailBytes);
        }
    }
    in_write.reset();
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
    result.stderr_tail = tail_of(captured);
    return result;
}

int run_quietly(const std::vector<std::string>& argv) {
    FileActions actions;
    posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(actions.get(), STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(actions.get(), STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    SpawnAttr attr(false);
    std::vector<std::string> args = argv;
    auto c_args = c_strings(args);
    pid_t pid = -1;
    if (::posix_spawnp(&pid, c_args[0], actions.get(), attr.get(), c_args.data(), environ) != 0) {
        return -1;
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace delayq::cli
