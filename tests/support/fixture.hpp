#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "delayq/delayq.hpp"
#include "support/redis_server.hpp"

namespace delayq::test {

using namespace std::chrono_literals;

// Generous: these deadlines only bound a wait for an event that must happen; a slow machine
// never makes a correct library fail.
inline constexpr std::chrono::milliseconds kEventDeadline = 20s;

inline std::int64_t ms(TimePoint t) { return t.time_since_epoch().count(); }
inline std::int64_t ms(std::optional<TimePoint> t) { return t ? ms(*t) : -1; }

inline TimePoint from_ms(std::int64_t unix_ms) {
    return TimePoint(std::chrono::milliseconds(unix_ms));
}

// Polls `done` until it holds or the deadline passes; returns its last value.
template <class Pred>
bool eventually(Pred done, std::chrono::milliseconds deadline = kEventDeadline) {
    const auto end = std::chrono::steady_clock::now() + deadline;
    while (std::chrono::steady_clock::now() < end) {
        if (done()) return true;
        std::this_thread::sleep_for(5ms);
    }
    return done();
}

// Sends `count` messages with the same payload, due now, in one batch: for tests that need a
// backlog and do not care which message is which.
inline std::vector<SendResult> send_many(Queue& q, std::size_t count,
                                         const std::string& payload = "m") {
    const std::vector<Message> batch(count, Message{payload, {}});
    return q.send_batch(batch);
}

inline const Lease& lease_of(const Delivery& d) { return d.lease(); }
inline const Lease& lease_of(const Lease& l) { return l; }
inline std::vector<Lease> lease_of(std::span<const Delivery> deliveries) {
    std::vector<Lease> out;
    for (const Delivery& d : deliveries) out.push_back(d.lease());
    return out;
}

// A message as sent, and the delivery that leased it.
struct SentAndLeased {
    SendResult sent;
    Delivery delivery;
};

// DELAYQ_ENGINE=scripts (or functions, auto) runs the fixture's client that way, so that CI runs
// the suite in both modes (tests/CMakeLists.txt); unset, a test's own choice stands.
inline ClientOptions with_engine_from_env(ClientOptions options) {
    const char* engine = std::getenv("DELAYQ_ENGINE");
    if (engine == nullptr || *engine == '\0') return options;
    const auto parsed = parse_script_engine(engine);
    if (!parsed) {
        throw std::invalid_argument("DELAYQ_ENGINE must be auto, functions or scripts: " +
                                    std::string(engine));
    }
    options.engine = *parsed;
    return options;
}

// Each test gets its own redis-server, a client on it and a queue named "q".
class RedisTest : public ::testing::Test {
  protected:
    void SetUp() override {
        server_ = std::make_unique<RedisServer>(server_options());
        client_.emplace(server_->url(), with_engine_from_env(client_options()));
    }

    virtual RedisServerOptions server_options() const { return {}; }
    virtual ClientOptions client_options() const { return {}; }

    Client& client() { return *client_; }
    RedisServer& server() { return *server_; }

    Queue queue(const std::string& name = "q", QueueOptions options = {}) {
        return client_->queue(name, options);
    }
    // The operator's and the consumer's roles of a queue: most tests play all three roles.
    QueueAdmin admin(const Queue& q) { return client_->admin(q.name()); }
    Leases leases(const Queue& q) { return client_->leases(q.name()); }

    // Every key of the queue, sorted.
    std::vector<std::string> queue_keys(const std::string& name = "q") const {
        return server_->keys("dq:{" + name + "}:*");
    }

    // What must be left once every message of the queue is gone: the settings, the totals and,
    // once anything was delivered, the lateness histogram (aggregates, no message's data).
    std::vector<std::string> empty_queue_keys(const std::string& name = "q") const {
        const std::string lateness = queue_key(name, "lateness");
        if (server_->integer({"EXISTS", lateness}) == 1) {
            return {lateness, queue_key(name, "settings"), queue_key(name, "stats")};
        }
        return {queue_key(name, "settings"), queue_key(name, "stats")};
    }

    // Blocks until the Redis clock has passed `t`.
    void wait_for_server_time_after(TimePoint t) const {
        ASSERT_TRUE(eventually([&] { return server_->time_ms() > ms(t); }));
    }

    // Fetches until at least one message is delivered.
    FetchResult fetch_some(Queue& q, std::size_t max_count, Duration visibility) {
        FetchResult last;
        eventually([&] {
            last = leases(q).fetch(max_count, visibility);
            return !last.deliveries.empty();
        });
        return last;
    }

    Delivery fetch_one(Queue& q, Duration visibility = 30s) {
        FetchResult r = fetch_some(q, 1, visibility);
        if (r.deliveries.size() != 1) {
            throw std::runtime_error("no delivery within the deadline");
        }
        return r.deliveries.front();
    }

    // Sends one message and leases it: where most tests of a delivery's answers start. Only
    // meant for a queue with nothing else to deliver, or the lease may be another message's.
    SentAndLeased send_and_fetch(Queue& q, const std::string& payload,
                                 const SendOptions& options = {}, Duration visibility = 30s) {
        SendResult sent = q.send(payload, options);
        return {std::move(sent), fetch_one(q, visibility)};
    }

    std::unique_ptr<RedisServer> server_;
    std::optional<Client> client_;
};

}  // namespace delayq::test
