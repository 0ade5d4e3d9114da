#pragma once

// The soak's workload (soak_test.cpp): producers and consumers that use every path a message can
// take, and the ledger that checks each message ends acked exactly once.
#include <atomic>
#include <chrono>
#include <iostream>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "support/fixture.hpp"

namespace delayq::test::soak {

class Ledger {
  public:
    void expect(const Queue& q, const std::string& id) {
        std::lock_guard lock(mutex_);
        expected_.insert(key(q, id));
    }
    void acked(const Queue& q, const std::string& id) {
        std::lock_guard lock(mutex_);
        if (++acks_[key(q, id)] > 1) ++duplicates_;
    }
    // True the first time for a message: to reject, release or throw only once per message.
    bool first_time(const std::string& what, const Queue& q, const std::string& id) {
        std::lock_guard lock(mutex_);
        return once_.insert(what + "\n" + key(q, id)).second;
    }
    std::size_t missing() const {
        std::lock_guard lock(mutex_);
        std::size_t n = 0;
        for (const auto& id : expected_) n += acks_.contains(id) ? 0 : 1;
        return n;
    }
    std::size_t unexpected() const {
        std::lock_guard lock(mutex_);
        std::size_t n = 0;
        for (const auto& [id, count] : acks_) n += expected_.contains(id) ? 0 : 1;
        return n;
    }
    std::size_t duplicates() const {
        std::lock_guard lock(mutex_);
        return duplicates_;
    }
    std::size_t expected() const {
        std::lock_guard lock(mutex_);
        return expected_.size();
    }

  private:
    // A newline is in no queue name or id.
    static std::string key(const Queue& q, const std::string& id) { return q.name() + "\n" + id; }

    mutable std::mutex mutex_;
    std::unordered_set<std::string> expected_;
    std::unordered_map<std::string, int> acks_;
    std::unordered_set<std::string> once_;
    std::size_t duplicates_ = 0;
};

// The handler of the main queue; a message's payload says how it is to be treated.
inline Outcome handle(Ledger& ledger, const Queue& q, const Delivery& d) {
    const std::string& kind = d.payload();
    if (kind == "nack" && d.attempt() < 3) return Nack{.delay = 5ms, .error = "not yet"};
    if (kind == "throw" && ledger.first_time("throw", q, d.id())) {
        throw std::runtime_error("handler failed once");
    }
    if (kind == "reject" && ledger.first_time("reject", q, d.id())) return Reject{.error = "no"};
    if (kind == "purge") return Reject{.error = "to be purged"};
    ledger.acked(q, d.id());
    return Ack{};
}

class Soak {
  public:
    Soak(Client& client, Ledger& ledger)
        : main_(client.queue("soak")),
          lapse_(client.queue("soak-lapse")),
          main_admin_(client.admin("soak")),
          lapse_admin_(client.admin("soak-lapse")),
          main_leases_(client.leases("soak")),
          lapse_leases_(client.leases("soak-lapse")),
          ledger_(ledger) {}

    // Producers run for `length`; then waits until every expected message is acked.
    bool run(std::chrono::milliseconds length) {
        stop_ = false;
        start_consumer(0);
        start_consumer(1);
        std::vector<std::thread> threads;
        for (int p = 0; p < 2; ++p) {
            threads.emplace_back([this, p, length] { guarded([&] { produce(p, length); }); });
        }
        threads.emplace_back([this] { guarded([&] { lapse_handler(); }); });
        threads.emplace_back([this] { guarded([&] { janitor(); }); });
        // Halfway: one consumer stops (handing back what it had prefetched) and a new one starts.
        std::this_thread::sleep_for(length / 2);
        consumers_[1].reset();
        start_consumer(1);
        threads[0].join();
        threads[1].join();
        const bool drained = eventually(
            [&] { return ledger_.missing() == 0 && empty(main_admin_) && empty(lapse_admin_); },
            90s);
        stop_ = true;
        for (std::size_t i = 2; i < threads.size(); ++i) threads[i].join();
        consumers_[0].reset();
        consumers_[1].reset();
        return drained;
    }

    QueueAdmin& main() { return main_admin_; }
    QueueAdmin& lapse() { return lapse_admin_; }
    // Calls whose answer contradicted the test's own use of the queue (a cancel that did not
    // cancel, a lease lost without a fault...).
    int failures() const { return failures_.load(); }

  private:
    // An exception in a test thread is a failure of the run, not a crash of the test binary.
    template <class Body>
    void guarded(Body body) {
        try {
            body();
        } catch (const std::exception& e) {
            ++failures_;
            std::cerr << "soak thread failed: " << e.what() << "\n";
        }
    }

    static bool empty(QueueAdmin& admin) {
        const QueueStats s = admin.stats();
        return s.scheduled + s.ready + s.in_flight + s.dead == 0;
    }

    void start_consumer(int slot) {
        consumers_[slot] = std::make_unique<Consumer>(
            main_leases_, [this](const Delivery& d) { return handle(ledger_, main_, d); },
            ConsumerOptions{.concurrency = 4,
                            .prefetch = 8,
                            .max_batch = 50,
                            .visibility_timeout = 10s,
                            .backoff = Backoff{.initial = 5ms, .max = 50ms},
                            .idle_check = 200ms});
        consumers_[slot]->start();
    }

    void produce(int p, std::chrono::milliseconds length) {
        std::mt19937 rng(static_cast<unsigned>(p + 1));
        std::uniform_int_distribution<int> small_delay(0, 20);
        const auto end = std::chrono::steady_clock::now() + length;
        for (int i = 0; std::chrono::steady_clock::now() < end; ++i) {
            const std::string tag = "p" + std::to_string(p) + "-" + std::to_string(i);
            switch (i % 10) {
                case 0:
                    ledger_.expect(main_, main_.send("ack").id);
                    break;
                case 1:
                    ledger_.expect(main_, main_.send("ack", {.id = tag}).id);
                    break;
                case 2: {
                    std::vector<Message> batch;
                    for (int k = 0; k < 8; ++k) {
                        const char* kind = k % 3 == 0 ? "ack" : k % 3 == 1 ? "nack" : "throw";
                        batch.push_back(
                            {kind,
                             {.id = k % 2 == 0 ? std::optional(tag + "-" + std::to_string(k))
                                               : std::nullopt}});
                    }
                    for (const auto& r : main_.send_batch(batch)) ledger_.expect(main_, r.id);
                    break;
                }
                case 3:
                    ledger_.expect(main_,
                                   main_.send("nack", {.delay = Duration(small_delay(rng))}).id);
                    break;
                case 4:
                    ledger_.expect(main_, main_.send("throw").id);
                    break;
                case 5:
                    ledger_.expect(main_, main_.send("reject", {.id = tag}).id);
                    break;
                case 6:
                    main_.send("purge");  // rejected every time; the janitor purges it
                    break;
                case 7: {
                    const SendResult s = main_.send("cancelled", {.delay = 1h, .id = tag});
                    if (main_.cancel(s.id) != CancelResult::kCancelled) ++failures_;
                    break;
                }
                case 8: {
                    const SendResult s = main_.send("ack", {.delay = 1h});
                    ledger_.expect(main_, s.id);
                    if (main_.reschedule(s.id, Duration(small_delay(rng))).status !=
                        RescheduleStatus::kRescheduled) {
                        ++failures_;
                    }
                    break;
                }
                case 9:
                    // Expires unless fetched within 1 ms; the janitor requeues it if it did.
                    ledger_.expect(main_, main_.send("expire", {.expire_after = 1ms}).id);
                    break;
            }
            ledger_.expect(
                lapse_,
                lapse_.send("lapse", {.id = i % 2 == 0 ? std::optional(tag) : std::nullopt}).id);
            std::this_thread::sleep_for(2ms);
        }
    }

    // The lapse queue, handled with the low-level calls: a first delivery is abandoned so that
    // its lease lapses and the message comes back; later ones are extended or released once,
    // then acked.
    void lapse_handler() {
        while (!stop_) {
            const FetchResult f = lapse_leases_.fetch(20, 30ms);
            for (const auto& d : f.deliveries) {
                if (d.attempt() == 1) continue;  // abandoned: the lease lapses
                if (ledger_.first_time("release", lapse_, d.id())) {
                    if (lapse_leases_.release(d.lease()).lost()) ++failures_;
                    continue;
                }
                if (lapse_leases_.extend(d.lease(), 5s).lost()) ++failures_;
                if (lapse_leases_.ack(d.lease()).status != LeaseStatus::kAcked) ++failures_;
                ledger_.acked(lapse_, d.id());
            }
            if (f.deliveries.empty()) std::this_thread::sleep_for(5ms);
        }
    }

    // Requeues dead letters (rejected once, or expired) and purges the ones meant for it.
    void janitor() {
        while (!stop_) {
            std::vector<std::string> requeue;
            std::vector<std::string> purge;
            for (const auto& m : main_admin_.list(State::kDead, {.limit = 1000}).messages) {
                (m.payload == "purge" ? purge : requeue).push_back(m.id);
            }
            if (!requeue.empty()) main_admin_.requeue({.ids = requeue});
            if (!purge.empty()) main_admin_.purge({.ids = purge});
            std::this_thread::sleep_for(50ms);
        }
    }

    Queue main_;
    Queue lapse_;
    QueueAdmin main_admin_;
    QueueAdmin lapse_admin_;
    Leases main_leases_;
    Leases lapse_leases_;
    Ledger& ledger_;
    std::unique_ptr<Consumer> consumers_[2];
    std::atomic<bool> stop_{false};
    std::atomic<int> failures_{0};
};

// The state Redis must return to. Memory: used_memory minus client buffers (the library's pool
// and the consumers' connections vary in number and are not data), read once it has stopped
// moving.
// The state Redis must return to, read when no client but the reading one is connected (every
// connection holds buffers that are not data) and once used_memory has stopped moving.
}  // namespace delayq::test::soak
