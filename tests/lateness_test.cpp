// The delivery lateness histogram the fetch script keeps per queue (QueueStats::lateness).
#include <algorithm>

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using LatenessTest = RedisTest;

// The cumulative count of the bucket whose upper bound is `le`.
std::uint64_t at_most(const LatenessHistogram& h, Duration le) {
    const auto it = std::find_if(h.buckets.begin(), h.buckets.end(),
                                 [&](const LatenessHistogram::Bucket& b) { return b.le == le; });
    if (it == h.buckets.end()) throw std::runtime_error("no bucket " + std::to_string(le.count()));
    return it->count;
}

TEST_F(LatenessTest, EveryBucketIsReportedBeforeAnyDelivery) {
    Queue q = queue();
    q.send("x", {.delay = 1h});
    const LatenessHistogram h = admin(q).stats().lateness;
    ASSERT_FALSE(h.buckets.empty());
    EXPECT_EQ(h.buckets.front().le, 0ms);
    EXPECT_EQ(h.buckets.back().le, Duration::max());
    EXPECT_TRUE(std::is_sorted(h.buckets.begin(), h.buckets.end(),
                               [](const auto& a, const auto& b) { return a.le < b.le; }));
    for (const auto& b : h.buckets) EXPECT_EQ(b.count, 0u);
    EXPECT_EQ(h.count, 0u);
    EXPECT_EQ(h.sum, 0ms);
    // A fetch that delivers nothing writes nothing.
    EXPECT_TRUE(leases(q).fetch(10, 30s).deliveries.empty());
    EXPECT_EQ(server().integer({"EXISTS", queue_key("q", "lateness")}), 0);
}

// Messages due 3 s and 200 s before the fetch fall in the buckets up to 5 s and up to 300 s, by
// the Redis clock; the sum holds their lateness.
TEST_F(LatenessTest, DeliveriesFallInTheBucketsOfTheirLateness) {
    Queue q = queue();
    const std::int64_t now = server().time_ms();
    for (int i = 0; i < 3; ++i) q.send("a", {.at = from_ms(now - 3'000)});
    for (int i = 0; i < 2; ++i) q.send("b", {.at = from_ms(now - 200'000)});
    q.send("later", {.delay = 1h});
    const FetchResult f = leases(q).fetch(10, 30s);
    ASSERT_EQ(f.deliveries.size(), 5u);
    const std::int64_t elapsed = ms(f.now) - now;
    ASSERT_LT(elapsed, 2'000) << "the bucket bounds below assume a fetch within 2 s";

    const LatenessHistogram h = admin(q).stats().lateness;
    EXPECT_EQ(h.count, 5u);
    EXPECT_EQ(at_most(h, 2'500ms), 0u);
    EXPECT_EQ(at_most(h, 5'000ms), 3u);
    EXPECT_EQ(at_most(h, 60'000ms), 3u);
    EXPECT_EQ(at_most(h, 300'000ms), 5u);
    EXPECT_EQ(at_most(h, Duration::max()), 5u);
    EXPECT_EQ(h.sum.count(), 3 * 3'000 + 2 * 200'000 + 5 * elapsed);
}

// One fetch of messages late by amounts across every bucket, each its own due time: the buckets
// match what the deliveries' own due times and the fetch's clock say.
TEST_F(LatenessTest, ManyDueTimesInOneFetchEachFindTheirBucket) {
    Queue q = queue();
    const std::int64_t now = server().time_ms();
    std::vector<Message> batch;
    for (std::int64_t late : {0, 1, 2, 3, 7, 30, 400, 2'000, 7'000, 20'000, 100'000, 1'000'000,
                              4'000'000, 7, 400, 400}) {
        batch.push_back({"m", {.at = from_ms(now - late)}});
    }
    q.send_batch(batch);
    const FetchResult f = leases(q).fetch(100, 30s);
    ASSERT_EQ(f.deliveries.size(), batch.size());

    const LatenessHistogram h = admin(q).stats().lateness;
    EXPECT_EQ(h.count, batch.size());
    std::int64_t sum = 0;
    for (const auto& d : f.deliveries) sum += ms(f.now) - ms(d.due());
    EXPECT_EQ(h.sum.count(), sum);
    for (const auto& bucket : h.buckets) {
        const auto expected = std::count_if(
            f.deliveries.begin(), f.deliveries.end(),
            [&](const Delivery& d) { return Duration(ms(f.now) - ms(d.due())) <= bucket.le; });
        EXPECT_EQ(bucket.count, static_cast<std::uint64_t>(expected)) << bucket.le.count();
    }
}

// Every consumer's fetch counts, and so does a redelivery, by its own due time.
TEST_F(LatenessTest, EveryConsumerAndEveryRedeliveryCounts) {
    Queue q = queue();
    q.send("x", {.at = from_ms(server().time_ms() - 10'000)});
    Client other(server().url());
    const FetchResult first = other.leases("q").fetch(1, 30s);
    ASSERT_EQ(first.deliveries.size(), 1u);
    ASSERT_EQ(other.leases("q").nack(first.deliveries[0].lease(), Nack{.delay = 0ms}).status,
              LeaseStatus::kRetrying);
    const Delivery again = fetch_one(q);
    EXPECT_EQ(again.attempt(), 2);
    const LatenessHistogram h = admin(q).stats().lateness;
    EXPECT_EQ(h.count, 2u);
    // The first was 10 s late; the redelivery was due when the nack made it due again.
    EXPECT_EQ(at_most(h, 5'000ms), 1u);
    EXPECT_EQ(at_most(h, 30'000ms), 2u);
}

}  // namespace
}  // namespace delayq::test
