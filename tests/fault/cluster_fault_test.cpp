// Scenarios on a Redis Cluster of 3 primaries, each with a replica (appendonly, appendfsync
// always): producer and consumer processes on one queue per primary, reaching the cluster
// through its seeds, while slots move and primaries change. The history checker judges them as
// it does the single server's scenarios.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "fault/fault_fixture.hpp"
#include "support/redis_cluster.hpp"

namespace delayq::fault {
namespace {

using test::RedisCluster;
using test::RedisClusterOptions;

class ClusterFault : public FaultTest {
  protected:
    std::string start_redis() override {
        cluster_ = std::make_unique<RedisCluster>(
            RedisClusterOptions{.appendonly = true, .extra_args = {"--appendfsync", "always"}});
        return cluster_->seeds_url();
    }

    long long stored_messages(const std::string& queue) const override {
        const std::string key = test::queue_key(queue, "msg");
        return cluster_->node(cluster_->primary_of_slot(RedisCluster::slot_of(key))).hlen(key);
    }

    // Asked of a running primary (the client's first one may be the node a test killed); the
    // nodes share this machine's clock.
    std::int64_t redis_now() const override {
        return cluster_->node(cluster_->primaries().front()).time_ms();
    }

    // One queue on each primary, each with a producer pN and a consumer cN of its own.
    std::vector<std::string> start_load(const ProducerSpec& producer,
                                        const ConsumerSpec& consumer) {
        std::vector<std::string> queues;
        const std::vector<std::size_t> primaries = cluster_->primaries();
        for (std::size_t i = 0; i < primaries.size(); ++i) {
            queues.push_back(cluster_->name_served_by(primaries[i], "fq"));
            ProducerSpec p = producer;
            p.queue = queues.back();
            start_producer("p" + std::to_string(i), p);
            ConsumerSpec c = consumer;
            c.queue = queues.back();
            start_consumer("c" + std::to_string(i), c);
        }
        return queues;
    }

    bool await_acks(std::size_t n) {
        return await_history([n](const History& h) { return h.acks.size() >= n; });
    }

    // Whether `consumer` recorded a delivery after `since` (Redis time).
    bool delivered_after(const std::string& consumer, std::int64_t since) const {
        const History h = history();
        return std::any_of(h.deliveries.begin(), h.deliveries.end(), [&](const auto& d) {
            return d.process == consumer && d.delivered_at_ms > since;
        });
    }

    std::size_t owner_of(const std::string& queue) const {
        return cluster_->primary_of_slot(RedisCluster::slot_of(test::queue_key(queue, "msg")));
    }

    std::unique_ptr<RedisCluster> cluster_;
};

const ProducerSpec kProducer{
    .count = 120, .delay_min_ms = 0, .delay_max_ms = 400, .interval_ms = 8};
// Sending for about 5 s: long enough to go on through three failovers, or a kill and the
// replica's takeover, so that every queue has traffic after its change.
const ProducerSpec kLongProducer{
    .count = 250, .delay_min_ms = 0, .delay_max_ms = 400, .interval_ms = 20};
const ConsumerSpec kConsumer{.visibility_ms = 1500, .handler_sleep_ms = 5, .concurrency = 2};

// Each queue's slot moves to another primary while its producer and consumer run: the calls
// that meet the move wait (TRYAGAIN) or follow it (MOVED), and the workers never restart.
TEST_F(ClusterFault, SlotsMoveUnderProducersAndConsumers) {
    const std::vector<std::string> queues = start_load(kProducer, kConsumer);
    const std::vector<std::size_t> primaries = cluster_->primaries();
    for (std::size_t i = 0; i < queues.size(); ++i) {
        ASSERT_TRUE(await_acks(30 * (i + 1)));
        const int slot = RedisCluster::slot_of(test::queue_key(queues[i], "msg"));
        const std::size_t to = primaries[(i + 1) % primaries.size()];
        const std::int64_t start = redis_now();
        cluster_->migrate_slot(slot, to);
        const std::int64_t end = redis_now();
        record_fault("slot_move", "", start, end);
        ASSERT_EQ(owner_of(queues[i]), to);
        EXPECT_TRUE(await_history([&](const History&) {
            return delivered_after("c" + std::to_string(i), end);
        })) << queues[i]
            << " delivered nothing after its slot moved";
    }
    await_all_handled();
    finish();
}

// A coordinated failover (CLUSTER FAILOVER on the replica) of each primary in turn under load:
// it loses no write, so the checker allows no loss and explains duplicates only by the broken
// connections.
TEST_F(ClusterFault, EachPrimaryFailsOverUnderLoad) {
    const std::vector<std::string> queues = start_load(kLongProducer, kConsumer);
    for (std::size_t i = 0; i < queues.size(); ++i) {
        ASSERT_TRUE(await_acks(30 * (i + 1)));
        const std::size_t primary = owner_of(queues[i]);
        const std::vector<std::size_t> replicas = cluster_->replicas_of(primary);
        ASSERT_FALSE(replicas.empty());
        const std::int64_t start = redis_now();
        cluster_->failover(replicas.front());
        const std::int64_t end = redis_now();
        record_fault("failover", "", start, end);
        ASSERT_EQ(owner_of(queues[i]), replicas.front());
        EXPECT_TRUE(await_history([&](const History&) {
            return delivered_after("c" + std::to_string(i), end);
        })) << queues[i]
            << " delivered nothing after its primary failed over";
    }
    await_all_handled();
    finish();
}

// kill -9 of a primary under load: its replica takes over with what it had received. A durable
// producer (each send confirmed by the replica, WAIT 1) loses nothing; the plain producer of the
// same queue may lose the sends acknowledged in the last moments before the kill, and the test
// prints how many (docs/reliability.md, scenario 12). Acks can be undone the same way, so the
// checker lets the kill explain a message delivered again after a confirmed ack.
TEST_F(ClusterFault, AKilledPrimaryLosesNoDurableSend) {
    const std::vector<std::string> queues = start_load(kLongProducer, kConsumer);
    ProducerSpec durable = kLongProducer;
    durable.queue = queues[0];
    durable.wait_replicas = 1;
    durable.wait_timeout_ms = 500;
    start_producer("d0", durable);
    ASSERT_TRUE(await_acks(60));

    const std::size_t primary = owner_of(queues[0]);
    const std::int64_t start = redis_now();
    cluster_->kill(primary);
    cluster_->wait_ok();  // its replica is the primary now
    const std::int64_t end = redis_now();
    record_fault("primary_kill", "", start, end);
    ASSERT_NE(owner_of(queues[0]), primary);
    // Back as the new primary's replica, so that durable sends can be confirmed again.
    cluster_->restart(primary);
    EXPECT_TRUE(await_history([&](const History&) { return delivered_after("c0", end); }))
        << queues[0] << " delivered nothing after its primary was killed";

    const MayLose plain = {"p0"};
    await_all_handled(kDeadline, plain);
    const Report report = finish(plain);
    // Every durable send was acknowledged, and none of them is lost (finish checks it).
    std::size_t durable_acknowledged = 0;
    for (const auto& s : history().sends) {
        durable_acknowledged += s.process == "d0" && s.status != SendStatus::kUnknown &&
                                s.status != SendStatus::kFailed;
    }
    EXPECT_GE(durable_acknowledged, static_cast<std::size_t>(durable.count));
    EXPECT_GT(report.faults_by_kind.at("primary_kill"), 0u);
}

}  // namespace
}  // namespace delayq::fault
