// Order timeouts with delayq: every order gets a message due at its payment deadline. Paying
// cancels the message; an order still unpaid when its message arrives is closed. At the end it
// counts: every order was either paid or closed, once, and no deadline fired early.
//
// usage: delayq_example_order_timeout [REDIS_URL]
//        (default URL: $DELAYQ_REDIS_URL, else redis://127.0.0.1:6379)
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <delayq/delayq.hpp>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "redis_url.hpp"

using namespace std::chrono_literals;

int main(int argc, char** argv) {
    const std::string url = example_redis_url(argc, argv, 1);
    constexpr int kOrders = 10;
    try {
        delayq::Client client{url};
        std::mt19937 rng{std::random_device{}()};
        // A queue of its own per run, so that leftovers of another run cannot interfere.
        const std::string name = "example-orders-" + std::to_string(rng());
        auto queue = client.queue(name);  // the shop: places orders, cancels paid ones
        auto admin = client.admin(name);  // the operator: checks nothing was left behind

        std::mutex mutex;
        std::condition_variable changed;
        std::set<std::string> closed;
        std::set<std::string> paid;
        int early = 0;
        delayq::ConsumerOptions options;
        options.concurrency = 2;
        delayq::Consumer consumer{client.leases(name),
                                  [&](const delayq::Delivery& d) -> delayq::Outcome {
                                      std::lock_guard lock(mutex);
                                      if (d.lateness() < 0ms) ++early;
                                      closed.insert(d.id());
                                      std::printf(
                                          "%s unpaid at its deadline: closed (%lld ms "
                                          "late)\n",
                                          d.id().c_str(),
                                          static_cast<long long>(d.lateness().count()));
                                      changed.notify_all();
                                      return delayq::Ack{};
                                  },
                                  options};
        consumer.start();

        std::uniform_int_distribution<int> deadline_ms(1000, 3000);
        std::vector<std::string> ids;
        for (int i = 1; i <= kOrders; ++i) {
            const std::string id = "order-" + std::to_string(i);
            const std::chrono::milliseconds deadline(deadline_ms(rng));
            // The id makes a retried send harmless and lets the payment find the timer.
            queue.send("{\"order\": " + std::to_string(i) + "}", {.delay = deadline, .id = id});
            std::printf("%s placed: pay within %lld ms\n", id.c_str(),
                        static_cast<long long>(deadline.count()));
            ids.push_back(id);
        }
        std::this_thread::sleep_for(500ms);
        for (std::size_t i = 0; i < ids.size(); i += 2) {  // every other order is paid
            if (queue.cancel(ids[i]) == delayq::CancelResult::kCancelled) {
                std::lock_guard lock(mutex);
                paid.insert(ids[i]);
                std::printf("%s paid: timer cancelled\n", ids[i].c_str());
            }
        }

        std::unique_lock lock(mutex);
        changed.wait_for(lock, 30s, [&] { return paid.size() + closed.size() == ids.size(); });
        lock.unlock();
        consumer.stop();
        consumer.wait();
        const delayq::QueueStats stats = admin.stats();
        admin.purge({.all = true});
        const bool ok = paid.size() + closed.size() == ids.size() && early == 0 &&
                        stats.scheduled + stats.ready + stats.in_flight + stats.dead == 0;
        std::printf("%zu orders: %zu paid, %zu closed, %d early; %s\n", ids.size(), paid.size(),
                    closed.size(), early, ok ? "none lost" : "MISMATCH");
        return ok ? 0 : 1;
    } catch (const delayq::Error& e) {
        std::fprintf(stderr, "delayq: %s\n", e.what());
        return 1;
    }
}
