// Consumers of one queue in one Client share their fetches (docs/design.md, Shared fetches):
// each message still goes to one of them, once, and every one of them keeps fetching for itself.
// How the rounds interleave is driven step by step in unit/fetch_share_test.cpp.
#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "support/consumer_options.hpp"
#include "support/fixture.hpp"
#include "support/handlers.hpp"
#include "support/recorder.hpp"

namespace delayq::test {
namespace {

using SharedFetchTest = RedisTest;

// A delivery and the consumer that handled it.
struct Handled {
    std::size_t consumer;
    std::string id;
};

TEST_F(SharedFetchTest, EachMessageGoesToOneConsumerOnce) {
    Queue q = queue();
    Collector<Handled> seen;
    std::vector<std::unique_ptr<Consumer>> consumers;
    for (std::size_t i = 0; i < 4; ++i) {
        ConsumerOptions o = without_idle_polling();
        o.concurrency = 2;
        o.max_batch = 8;
        // Half of them lease for longer: their fetches cannot share a call with the others'.
        if (i % 2 == 1) o.visibility_timeout = 45s;
        consumers.push_back(std::make_unique<Consumer>(
            leases(q),
            [&seen, i](const Delivery& d) -> Outcome {
                seen.add({i, d.id()});
                return Ack{};
            },
            o));
        consumers.back()->start();
    }
    // Waves due now, soon and a little later: the consumers wake together for each.
    std::set<std::string> sent;
    for (const auto delay : {0ms, 150ms, 300ms}) {
        std::vector<Message> batch;
        for (int i = 0; i < 100; ++i) batch.push_back({std::to_string(i), {.delay = delay}});
        for (const SendResult& r : q.send_batch(batch)) sent.insert(r.id);
    }
    ASSERT_TRUE(seen.wait_for(300));
    for (auto& c : consumers) c->stop();
    std::uint64_t fetched = 0;
    std::uint64_t acked = 0;
    for (auto& c : consumers) {
        c->wait();
        fetched += c->stats().fetched;
        acked += c->stats().acked;
        EXPECT_EQ(c->stats().leases_lost, 0U);
    }
    std::set<std::string> handled;
    for (const Handled& h : seen.items()) EXPECT_TRUE(handled.insert(h.id).second) << h.id;
    EXPECT_EQ(handled, sent);
    EXPECT_EQ(fetched, 300U);
    EXPECT_EQ(acked, 300U);
    const QueueStats st = admin(q).stats();
    EXPECT_EQ(st.totals.delivered, 300U);
    EXPECT_EQ(st.totals.acked, 300U);
}

// Each consumer has room for one message and holds it: every later message must be fetched by
// a consumer whose clock fired with the others' and whose earlier fetches another one answered.
TEST_F(SharedFetchTest, EveryConsumerStillFetchesForItself) {
    Queue q = queue();
    Collector<Handled> seen;
    Latch finish;
    constexpr std::size_t kConsumers = 4;
    std::vector<std::unique_ptr<Consumer>> consumers;
    for (std::size_t i = 0; i < kConsumers; ++i) {
        ConsumerOptions o = without_idle_polling();
        o.concurrency = 1;
        o.prefetch = 0;
        consumers.push_back(std::make_unique<Consumer>(
            leases(q),
            [&seen, &finish, i](const Delivery& d) -> Outcome {
                seen.add({i, d.id()});
                finish.wait(30s);
                return Ack{};
            },
            o));
        consumers.back()->start();
    }
    for (std::size_t n = 1; n <= kConsumers; ++n) {
        q.send("m" + std::to_string(n), {.delay = 50ms});
        ASSERT_TRUE(seen.wait_for(n)) << "message " << n << " was not delivered";
    }
    std::map<std::size_t, int> per_consumer;
    for (const Handled& h : seen.items()) ++per_consumer[h.consumer];
    EXPECT_EQ(per_consumer.size(), kConsumers);  // one each: none of them had room for two
    finish.open();
    for (auto& c : consumers) c->stop();
    for (auto& c : consumers) c->wait();
    EXPECT_EQ(admin(q).stats().totals.acked, kConsumers);
}

// A consumer stopped while the others run hands back what it held; the others take it.
TEST_F(SharedFetchTest, AStoppedConsumerLeavesItsShareToTheOthers) {
    Queue q = queue();
    Collector<DeliveryRecord> seen;
    std::vector<std::unique_ptr<Consumer>> consumers;
    for (std::size_t i = 0; i < 3; ++i) {
        ConsumerOptions o = fast_options();
        o.concurrency = 2;
        consumers.push_back(std::make_unique<Consumer>(leases(q), recording(seen), o));
        consumers.back()->start();
    }
    send_many(q, 100);
    ASSERT_TRUE(seen.wait_for(1));
    consumers[0]->stop();
    consumers[0]->wait();
    send_many(q, 100);
    ASSERT_TRUE(eventually([&] { return admin(q).stats().totals.acked == 200; }));
    for (auto& c : consumers) c->stop();
    std::uint64_t acked = 0;
    for (auto& c : consumers) {
        c->wait();
        acked += c->stats().acked;
    }
    EXPECT_EQ(acked, 200U);
    const QueueStats st = admin(q).stats();
    EXPECT_EQ(st.scheduled + st.ready + st.in_flight, 0U);
}

}  // namespace
}  // namespace delayq::test
