#include "local_redis.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "errors.hpp"
#include "fd.hpp"
#include "process.hpp"

namespace delayq::cli {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

// Loading a large append-only file can take a while; a fresh server answers in milliseconds.
constexpr auto kStartTimeout = 60s;
constexpr auto kStopTimeout = 60s;

enum class Ping { kPong, kLoading, kNoAnswer };

// Held while checking or changing the server, so that two commands starting at once run one
// server. The descriptor is close-on-exec: a daemon inheriting it would hold the lock forever.
class DirLock {
  public:
    explicit DirLock(const fs::path& dir)
        : fd_(::open((dir / "lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600)) {
        if (fd_.get() < 0) {
            throw RuntimeFailure("cannot open " + (dir / "lock").string() + ": " +
                                 std::strerror(errno));
        }
        while (::flock(fd_.get(), LOCK_EX) != 0) {
            if (errno != EINTR) {
                throw RuntimeFailure("cannot lock " + (dir / "lock").string() + ": " +
                                     std::strerror(errno));
            }
        }
    }

  private:
    Fd fd_;
};

void make_dir(const fs::path& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw RuntimeFailure("cannot create " + dir.string() + ": " + ec.message());
    // The socket is the only door to the data: keep the directory private.
    ::chmod(dir.c_str(), 0700);
}

// A raw PING over the unix socket, without the library: a status check must not log warnings
// or create connection pools, and must tell "loading" from "absent".
Ping ping(const fs::path& socket_path) {
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const std::string path = socket_path.string();
    if (path.size() >= sizeof(addr.sun_path)) return Ping::kNoAnswer;
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    Fd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (fd.get() < 0) return Ping::kNoAnswer;
    timeval tv{1, 0};
    ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    // sockaddr_un and sockaddr are layout-compatible by POSIX contract; the cast is the API.
    if (::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0) {
        return Ping::kNoAnswer;
    }
    constexpr std::string_view kPing = "*1\r\n$4\r\nPING\r\n";
    if (::send(fd.get(), kPing.data(), kPing.size(), MSG_NOSIGNAL) !=
        static_cast<ssize_t>(kPing.size())) {
        return Ping::kNoAnswer;
    }
    char buf[128];
    const ssize_t n = ::recv(fd.get(), buf, sizeof buf, 0);
    if (n <= 0) return Ping::kNoAnswer;
    std::string_view reply(buf, static_cast<std::size_t>(n));
    if (reply.starts_with("+PONG")) return Ping::kPong;
    if (reply.starts_with("-LOADING")) return Ping::kLoading;
    return Ping::kNoAnswer;
}

// A live process (not a zombie: a daemon orphaned in a container may never be reaped).
bool alive(pid_t pid) {
    if (pid <= 0) return false;
    if (::kill(pid, 0) != 0 && errno != EPERM) return false;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return true;  // no /proc: trust kill()
    auto paren = line.rfind(')');
    return paren == std::string::npos || paren + 2 >= line.size() || line[paren + 2] != 'Z';
}

// The pid in the pidfile, when that process is alive and is a redis-server (pids are reused).
pid_t server_pid(const fs::path& dir) {
    std::ifstream in(dir / "redis.pid");
    long pid = -1;
    if (!(in >> pid) || pid <= 0 || !alive(static_cast<pid_t>(pid))) return -1;
    std::ifstream cmdline("/proc/" + std::to_string(pid) + "/cmdline");
    std::string name;
    if (std::getline(cmdline, name, '\0') && name.find("redis") == std::string::npos) return -1;
    return static_cast<pid_t>(pid);
}

std::string log_tail(const fs::path& dir) {
    std::ifstream in(dir / "redis.log");
    std::string line;
    std::string last;
    while (std::getline(in, line)) {
        if (!line.empty()) last = line;
    }
    return last.empty() ? "" : " (last line of " + (dir / "redis.log").string() + ": " + last + ")";
}

}  // namespace

fs::path LocalRedis::default_dir() {
    if (const char* home = std::getenv("DELAYQ_HOME"); home != nullptr && *home != '\0') {
        return fs::absolute(home);
    }
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg != nullptr && *xdg != '\0') {
        return fs::absolute(fs::path(xdg) / "delayq");
    }
    const char* home = std::getenv("HOME");
    if (home == nullptr || *home == '\0') {
        throw RuntimeFailure(
            "no Redis URL given and no data directory for a local Redis: set DELAYQ_REDIS_URL, "
            "--redis, DELAYQ_HOME or HOME");
    }
    return fs::path(home) / ".local" / "share" / "delayq";
}

LocalRedis::LocalRedis(fs::path dir) : dir_(std::move(dir)) {}

void LocalRedis::ensure_running() const {
    if (ping(socket_path()) == Ping::kPong) return;  // the common case, without the lock
    make_dir(dir_);
    if (socket_path().string().size() >= sizeof(sockaddr_un{}.sun_path)) {
        throw RuntimeFailure("the local Redis socket path " + socket_path().string() +
                             " is too long for a unix socket; set DELAYQ_HOME to a shorter "
                             "directory");
    }
    DirLock lock(dir_);
    pid_t pid = server_pid(dir_);
    if (pid < 0) {
        const auto server = find_executable("redis-server");
        if (!server) {
            throw RuntimeFailure(
                "no Redis URL given (--redis or DELAYQ_REDIS_URL) and redis-server was not "
                "found on PATH to run a local one (Debian: apt-get install redis-server)");
        }
        const std::string dir = dir_.string();
        const int rc = run_quietly({*server, "--port", "0", "--unixsocket", socket_path().string(),
                                    "--unixsocketperm", "700", "--dir", dir, "--appendonly", "yes",
                                    "--maxmemory-policy", "noeviction", "--daemonize", "yes",
                                    "--pidfile", (dir_ / "redis.pid").string(), "--logfile",
                                    (dir_ / "redis.log").string()});
        if (rc != 0) {
            throw RuntimeFailure("could not start the local redis-server in " + dir +
                                 log_tail(dir_));
        }
    }
    const auto started = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() < started + kStartTimeout) {
        if (ping(socket_path()) == Ping::kPong) return;
        // A daemon that died while starting (on a bad data file, say) will never answer; give it
        // time to write its pidfile first.
        if (std::chrono::steady_clock::now() > started + 2s && server_pid(dir_) < 0) break;
        std::this_thread::sleep_for(10ms);
    }
    throw RuntimeFailure("the local redis-server in " + dir_.string() + " does not answer" +
                         log_tail(dir_));
}

LocalRedis::Status LocalRedis::status() const {
    Status s;
    s.pid = server_pid(dir_);
    const Ping p = ping(socket_path());
    s.running = p == Ping::kPong;
    s.answering = p != Ping::kNoAnswer;
    return s;
}

pid_t LocalRedis::stop() const {
    if (!fs::exists(dir_)) return -1;
    DirLock lock(dir_);
    const pid_t pid = server_pid(dir_);
    if (pid < 0) return -1;
    ::kill(pid, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + kStopTimeout;
    while (alive(pid)) {
        if (std::chrono::steady_clock::now() > deadline) {
            throw RuntimeFailure("the local redis-server (pid " + std::to_string(pid) +
                                 ") did not stop within a minute");
        }
        std::this_thread::sleep_for(10ms);
    }
    return pid;
}

}  // namespace delayq::cli
