#include "signals.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

namespace delayq::cli {
namespace {

sigset_t stop_signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    return set;
}

}  // namespace

SignalWatcher::SignalWatcher(std::function<void(int)> on_signal)
    : on_signal_(std::move(on_signal)) {
    sigset_t set = stop_signals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    thread_ = std::thread([this] { run(); });
}

SignalWatcher::~SignalWatcher() {
    done_ = true;
    thread_.join();
    // The signals stay blocked: the process is about to exit, and one arriving now has nothing
    // left to stop.
}

void SignalWatcher::run() {
    const sigset_t set = stop_signals();
    // Polling for `done_` a few times a second costs nothing and needs no extra wake-up channel.
    const timespec tick{0, 100'000'000};
    int received = 0;
    while (!done_) {
        const int sig = sigtimedwait(&set, nullptr, &tick);
        if (sig < 0) continue;  // EAGAIN (tick) or EINTR
        if (++received > 1) {
            const std::string text =
                "delayq: second signal: exiting now; messages being handled will be delivered "
                "again when their leases run out\n";
            [[maybe_unused]] auto n = ::write(STDERR_FILENO, text.data(), text.size());
            std::_Exit(128 + sig);
        }
        on_signal_(sig);
    }
}

}  // namespace delayq::cli
