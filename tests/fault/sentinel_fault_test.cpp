// A Sentinel failover under load: a primary and its replica (appendonly, appendfsync always)
// watched by three sentinels, producers and consumers reaching them through a
// redis+sentinel:// URL. SENTINEL FAILOVER promotes the replica without waiting for the writes
// the primary took last, and the old primary drops what it took after that when it is made a
// replica: a durable producer (WAIT 1) loses nothing, a plain one may lose those writes, and the
// test prints how many.
#include <memory>
#include <string>

#include "fault/fault_fixture.hpp"
#include "support/redis_sentinel.hpp"

namespace delayq::fault {
namespace {

using test::RedisSentinelOptions;
using test::RedisSentinelSet;

class SentinelFault : public FaultTest {
  protected:
    std::string start_redis() override {
        sentinels_ = std::make_unique<RedisSentinelSet>(
            RedisSentinelOptions{.appendonly = true, .extra_args = {"--appendfsync", "always"}});
        return sentinels_->url();
    }

    long long stored_messages(const std::string& queue) const override {
        return sentinels_->primary().hlen(test::queue_key(queue, "msg"));
    }

    std::int64_t redis_now() const override {
        return client_->server_time().time_since_epoch().count();
    }

    std::unique_ptr<RedisSentinelSet> sentinels_;
};

TEST_F(SentinelFault, AFailoverUnderLoadLosesNoDurableSend) {
    const ProducerSpec plain{
        .count = 150, .delay_min_ms = 0, .delay_max_ms = 400, .interval_ms = 8};
    ProducerSpec durable = plain;
    durable.wait_replicas = 1;
    durable.wait_timeout_ms = 500;
    start_producer("p1", plain);
    start_producer("d1", durable);
    const ConsumerSpec consumer{.visibility_ms = 1500, .handler_sleep_ms = 5, .concurrency = 2};
    start_consumer("c1", consumer);
    start_consumer("c2", consumer);
    ASSERT_TRUE(await_history([](const History& h) { return h.acks.size() >= 60; }));

    const int before = sentinels_->current_primary_port();
    const std::int64_t start = redis_now();
    sentinels_->failover();
    const std::int64_t end = redis_now();
    record_fault("sentinel_failover", "", start, end);
    ASSERT_NE(sentinels_->current_primary_port(), before);
    EXPECT_TRUE(await_history([&](const History& h) {
        for (const auto& d : h.deliveries) {
            if (d.delivered_at_ms > end) return true;
        }
        return false;
    })) << "nothing delivered after the failover";

    const MayLose may_lose = {"p1"};
    await_all_handled(kDeadline, may_lose);
    finish(may_lose);
}

}  // namespace
}  // namespace delayq::fault
