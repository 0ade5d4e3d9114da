// Sends messages with different delays and prints each one as it is delivered, with how late it
// arrived by the Redis server's clock.
//
// usage: delayq_example_delays [REDIS_URL]   (default: $DELAYQ_REDIS_URL, else redis://127.0.0.1)
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <delayq/delayq.hpp>
#include <mutex>
#include <string>
#include <vector>

#include "redis_url.hpp"

using namespace std::chrono_literals;

int main(int argc, char** argv) {
    std::string url = example_redis_url(argc, argv, 1);
    try {
        delayq::Client client{url};
        auto queue = client.queue("example-delays");
        auto admin = client.admin("example-delays");
        admin.purge({.all = true});

        const std::vector<std::chrono::milliseconds> delays = {0ms,    250ms,  500ms, 1000ms,
                                                               1500ms, 2000ms, 3000ms};
        std::mutex mutex;
        std::condition_variable done;
        std::size_t delivered = 0;
        delayq::Consumer consumer{client.leases("example-delays"),
                                  [&](const delayq::Delivery& d) {
                                      std::lock_guard lock(mutex);
                                      std::printf("delivered %-28s id=%s  late by %lld ms\n",
                                                  d.payload().c_str(), d.id().c_str(),
                                                  static_cast<long long>(d.lateness().count()));
                                      std::fflush(stdout);
                                      if (++delivered == delays.size()) done.notify_all();
                                      return delayq::Ack{};
                                  },
                                  {.concurrency = 4}};
        consumer.start();

        for (auto delay : delays) {
            auto r = queue.send("message due in " + std::to_string(delay.count()) + " ms",
                                {.delay = delay});
            std::printf("sent      id=%s due in %lld ms\n", r.id.c_str(),
                        static_cast<long long>(delay.count()));
        }
        std::unique_lock lock(mutex);
        if (!done.wait_for(lock, 30s, [&] { return delivered == delays.size(); })) {
            std::fprintf(stderr, "timed out: %zu of %zu delivered\n", delivered, delays.size());
            return 1;
        }
        lock.unlock();
        consumer.stop();
        consumer.wait();
        auto stats = admin.stats();
        std::printf("done: sent %llu, acked %llu, pending %zu, dead %zu\n",
                    static_cast<unsigned long long>(stats.totals.sent),
                    static_cast<unsigned long long>(stats.totals.acked),
                    stats.scheduled + stats.ready + stats.in_flight, stats.dead);
        return 0;
    } catch (const delayq::Error& e) {
        std::fprintf(stderr, "delayq: %s\n", e.what());
        return 1;
    }
}
