// Runs one delayq operation and prints what it saw, so a test can run it under faketime with a
// skewed wall clock:
//   delayq_skew_probe clock                       -> <this process's system_clock, unix ms>
//   delayq_skew_probe send <url> <queue> <delay>  -> <id> <due_ms>
//   delayq_skew_probe consume <url> <queue>       -> <id> <due_ms> <delivered_at_ms> <attempt>
// Exit status 2 when consume saw nothing within 30 s of real time.
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <optional>
#include <string>

#include "delayq/delayq.hpp"

namespace {

using namespace std::chrono_literals;

long long unix_ms(delayq::TimePoint t) { return t.time_since_epoch().count(); }

int usage() {
    std::fprintf(stderr,
                 "usage: delayq_skew_probe clock | send <url> <queue> <delay_ms> | "
                 "consume <url> <queue>\n");
    return 64;
}

int send(const std::string& url, const std::string& queue, long long delay_ms) {
    delayq::Client client(url);
    delayq::Queue q = client.queue(queue);
    const delayq::SendResult r = q.send("skewed", {.delay = std::chrono::milliseconds(delay_ms)});
    std::printf("%s %lld\n", r.id.c_str(), unix_ms(r.due));
    return 0;
}

int consume(const std::string& url, const std::string& queue) {
    delayq::Client client(url);
    std::mutex mutex;
    std::condition_variable cv;
    std::optional<delayq::Delivery> got;
    delayq::ConsumerOptions options;
    // No polling safety net: a consumer that aimed its sleep by this process's clock would
    // oversleep by the skew.
    options.idle_check = 1h;
    delayq::Consumer consumer(
        client.leases(queue),
        [&](const delayq::Delivery& d) -> delayq::Outcome {
            {
                std::lock_guard lock(mutex);
                if (!got) got = d;
            }
            cv.notify_all();
            return delayq::Ack{};
        },
        options);
    consumer.start();
    bool delivered = false;
    {
        std::unique_lock lock(mutex);
        delivered = cv.wait_for(lock, 30s, [&] { return got.has_value(); });
    }
    consumer.stop();
    consumer.wait();
    if (!delivered) {
        std::fprintf(stderr, "no delivery within 30 s\n");
        return 2;
    }
    std::printf("%s %lld %lld %d\n", got->id().c_str(), unix_ms(got->due()),
                unix_ms(got->delivered_at()), got->attempt());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::string mode = argc > 1 ? argv[1] : "";
        if (mode == "clock" && argc == 2) {
            const auto now = std::chrono::time_point_cast<std::chrono::milliseconds>(
                std::chrono::system_clock::now());
            std::printf("%lld\n", static_cast<long long>(now.time_since_epoch().count()));
            return 0;
        }
        if (mode == "send" && argc == 5) return send(argv[2], argv[3], std::stoll(argv[4]));
        if (mode == "consume" && argc == 4) return consume(argv[2], argv[3]);
        return usage();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "delayq_skew_probe: %s\n", e.what());
        return 1;
    }
}
