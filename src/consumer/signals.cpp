#include "consumer/signals.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <mutex>
#include <set>
#include <thread>

#include "consumer/runtime.hpp"
#include "log.hpp"

namespace delayq::detail {
namespace {

constexpr char kStop = 's';
constexpr char kQuit = 'q';

struct SignalState {
    std::mutex mutex;
    std::set<ConsumerRuntime*> runtimes;
    int pipe_fds[2] = {-1, -1};
    struct sigaction old_int {};
    struct sigaction old_term {};
    std::thread watcher;
};

SignalState& state() {
    static SignalState s;
    return s;
}

int g_write_fd = -1;  // read by the signal handler: set before the handlers are installed

extern "C" void on_signal(int /*signo*/) {
    int saved = errno;
    [[maybe_unused]] auto n = ::write(g_write_fd, &kStop, 1);
    errno = saved;
}

void watch(int read_fd) {
    char byte = 0;
    while (::read(read_fd, &byte, 1) == 1 && byte == kStop) {
        std::lock_guard lock(state().mutex);
        log().info("signal received: stopping {} consumer(s) gracefully", state().runtimes.size());
        for (auto* r : state().runtimes) r->stop();
    }
}

}  // namespace

void stop_on_signals(ConsumerRuntime* runtime) {
    SignalState& s = state();
    std::lock_guard lock(s.mutex);
    if (s.runtimes.empty()) {
        if (::pipe2(s.pipe_fds, O_CLOEXEC) != 0) {
            log().error(
                "cannot create a pipe for signal handling; signals will not stop consumers");
            return;
        }
        g_write_fd = s.pipe_fds[1];
        s.watcher = std::thread(watch, s.pipe_fds[0]);
        struct sigaction sa {};
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        sigaction(SIGINT, &sa, &s.old_int);
        sigaction(SIGTERM, &sa, &s.old_term);
    }
    s.runtimes.insert(runtime);
}

void forget_signals(ConsumerRuntime* runtime) {
    SignalState& s = state();
    std::unique_lock lock(s.mutex);
    if (s.runtimes.erase(runtime) == 0 || !s.runtimes.empty()) return;
    sigaction(SIGINT, &s.old_int, nullptr);
    sigaction(SIGTERM, &s.old_term, nullptr);
    [[maybe_unused]] auto n = ::write(s.pipe_fds[1], &kQuit, 1);
    std::thread watcher = std::move(s.watcher);
    lock.unlock();  // the watcher may be waiting for the lock
    watcher.join();
    lock.lock();
    ::close(s.pipe_fds[0]);
    ::close(s.pipe_fds[1]);
    s.pipe_fds[0] = s.pipe_fds[1] = -1;
}

}  // namespace delayq::detail
