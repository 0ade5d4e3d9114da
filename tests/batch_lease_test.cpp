// Leases::ack, extend and release of many leases in one call: one answer per lease, in order,
// stale and repeated leases lost, at most kMaxBatch a call.
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using namespace std::chrono_literals;

class BatchLeaseTest : public RedisTest {
  protected:
    // Three messages leased for 30 s, the third of them acked already: its lease is stale.
    FetchResult three_leased_one_stale(Queue& q) {
        send_many(q, 3);
        FetchResult r = fetch_some(q, 3, std::chrono::seconds(30));
        EXPECT_EQ(r.deliveries.size(), 3u);
        if (r.deliveries.size() == 3) {
            EXPECT_EQ(leases(q).ack(lease_of(r.deliveries[2])).status, LeaseStatus::kAcked);
        }
        return r;
    }
};

// The statuses of a batch's answers, in order.
std::vector<LeaseStatus> statuses_of(const std::vector<LeaseResult>& results) {
    std::vector<LeaseStatus> out;
    for (const LeaseResult& r : results) out.push_back(r.status);
    return out;
}

TEST_F(BatchLeaseTest, AckAcksEachHeldLeaseOnce) {
    Queue q = queue();
    const FetchResult r = three_leased_one_stale(q);
    ASSERT_EQ(r.deliveries.size(), 3u);
    const Delivery stale = r.deliveries[2];
    const std::vector<Delivery> batch{r.deliveries[0], r.deliveries[1], r.deliveries[0], stale};
    EXPECT_EQ(statuses_of(leases(q).ack(lease_of(batch))),
              (std::vector<LeaseStatus>{LeaseStatus::kAcked, LeaseStatus::kAcked,
                                        LeaseStatus::kLost, LeaseStatus::kLost}));
    EXPECT_EQ(admin(q).stats().totals.acked, 3u);
    EXPECT_EQ(queue_keys(), empty_queue_keys());
    EXPECT_TRUE(leases(q).ack(lease_of(std::span<const Delivery>{})).empty());
    const std::vector<Delivery> too_many(1001, stale);
    EXPECT_THROW(leases(q).ack(lease_of(too_many)), InvalidArgument);
}

TEST_F(BatchLeaseTest, ExtendAndReleaseAnswerEachLeaseInOrder) {
    Queue q = queue();
    const FetchResult r = three_leased_one_stale(q);
    ASSERT_EQ(r.deliveries.size(), 3u);
    const Delivery stale = r.deliveries[2];

    const std::vector<Delivery> held{r.deliveries[0], r.deliveries[1], stale};
    const std::vector<LeaseResult> extended = leases(q).extend(lease_of(held), 1h);
    EXPECT_EQ(statuses_of(extended),
              (std::vector<LeaseStatus>{LeaseStatus::kExtended, LeaseStatus::kExtended,
                                        LeaseStatus::kLost}));
    // From the Redis clock's now, an hour on: well past the 30 s the fetch leased them for.
    EXPECT_GE(extended[0].at, r.now + 1h);
    const auto info = admin(q).get(r.deliveries[1].id());
    ASSERT_TRUE(info && info->lease_deadline);
    EXPECT_EQ(ms(*info->lease_deadline), ms(extended[1].at));

    const std::vector<Delivery> back{r.deliveries[0], r.deliveries[1], r.deliveries[0], stale};
    EXPECT_EQ(statuses_of(leases(q).release(lease_of(back))),
              (std::vector<LeaseStatus>{LeaseStatus::kReleased, LeaseStatus::kReleased,
                                        LeaseStatus::kLost, LeaseStatus::kLost}));
    // Released without counting the attempt: both are delivered again as attempt 1.
    FetchResult again = fetch_some(q, 3, 30s);
    ASSERT_EQ(again.deliveries.size(), 2u);
    for (const Delivery& d : again.deliveries) EXPECT_EQ(d.attempt(), 1);
    EXPECT_EQ(admin(q).stats().totals.released, 2u);

    EXPECT_TRUE(leases(q).extend(lease_of(std::span<const Delivery>{}), 1h).empty());
    EXPECT_TRUE(leases(q).release(lease_of(std::span<const Delivery>{})).empty());
    const std::vector<Delivery> too_many(1001, stale);
    EXPECT_THROW(leases(q).extend(lease_of(too_many), 1h), InvalidArgument);
    EXPECT_THROW(leases(q).release(lease_of(too_many)), InvalidArgument);
}

}  // namespace
}  // namespace delayq::test
