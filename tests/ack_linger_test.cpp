// ConsumerOptions::ack_linger: acks handled a few milliseconds apart share one script call.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "support/command_calls.hpp"
#include "support/consumer_options.hpp"
#include "support/fixture.hpp"
#include "support/handlers.hpp"
#include "support/recorder.hpp"

namespace delayq::test {
namespace {

using AckLingerTest = RedisTest;

// The ack script's calls: each runs one HDEL of the handled records, and nothing else in these
// tests does (fetch deletes only records that leave the cold hash).
long long ack_calls(const RedisServer& server) { return command_calls(server, "hdel"); }

// Three handlers finish 0, 10 and 20 ms after they all started: without a linger, each ack
// would find the one before already sent and take a call of its own.
TEST_F(AckLingerTest, AcksAFewMillisecondsApartShareOneCall) {
    Queue q = queue();
    q.send("0");
    q.send("1");
    q.send("2");
    Collector<DeliveryRecord> seen;
    Latch all_started;
    ConsumerOptions o = fast_options();
    o.concurrency = 3;
    o.visibility_timeout = 1h;
    o.ack_linger = 1s;
    const long long before = ack_calls(server());
    Consumer c(leases(q),
               recording(seen,
                         [&](const Delivery& d) -> Outcome {
                             all_started.wait();
                             std::this_thread::sleep_for(std::stoi(d.payload()) * 10ms);
                             return Ack{};
                         }),
               o);
    c.start();
    ASSERT_TRUE(seen.wait_for(3));
    all_started.open();
    ASSERT_TRUE(eventually([&] { return c.stats().acked == 3; }));
    c.stop();
    c.wait();
    EXPECT_EQ(admin(q).stats().totals.acked, 3u);
    EXPECT_EQ(ack_calls(server()) - before, 1);
}

TEST_F(AckLingerTest, ALingerOverASecondOrBelowZeroIsRefused) {
    Queue q = queue();
    ConsumerOptions o = fast_options();
    o.ack_linger = 1001ms;
    EXPECT_THROW(Consumer(leases(q), ack_all, o), InvalidArgument);
    o.ack_linger = -1ms;
    EXPECT_THROW(Consumer(leases(q), ack_all, o), InvalidArgument);
}

}  // namespace
}  // namespace delayq::test
