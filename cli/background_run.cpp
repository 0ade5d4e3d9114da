#include "background_run.hpp"

#include <chrono>
#include <cstdio>
#include <delayq/url.hpp>
#include <mutex>

#include "errors.hpp"
#include "signals.hpp"
#include "ticker.hpp"

namespace delayq::cli {

int run_until_signal(Session& session, const std::string& command, const std::string& doing,
                     const BackgroundPart& part) {
    std::mutex mutex;
    bool stopping = false;
    // Before any thread of the part's or the client's: they must not take the signals.
    SignalWatcher signals([&](int) {
        std::fprintf(stderr, "%s: stopping (again to exit at once)\n", command.c_str());
        std::lock_guard lock(mutex);
        stopping = true;
        part.stop();
    });
    session.connect();
    {
        // A signal before this stops nothing yet: start() must not begin after it.
        std::lock_guard lock(mutex);
        if (stopping) return kExitOk;
        part.start();
    }
    std::fprintf(stderr, "%s: %s, Redis %s\n", command.c_str(), doing.c_str(),
                 masked_url(session.url()).c_str());
    {
        const Ticker ticker(std::chrono::seconds(1), part.report);
        part.wait();
    }
    std::fprintf(stderr, "%s: stopped\n", command.c_str());
    return kExitOk;
}

std::string queues_text(const std::vector<std::string>& queues, const std::string& all) {
    if (queues.empty()) return all;
    std::string text = "queue(s)";
    for (const std::string& queue : queues) text += " " + queue;
    return text;
}

}  // namespace delayq::cli
