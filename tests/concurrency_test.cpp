#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "support/fixture.hpp"
#include "support/recorder.hpp"

namespace delayq::test {
namespace {

using ConcurrencyTest = RedisTest;

constexpr int kConsumers = 8;
constexpr int kMessages = 20'000;
constexpr std::size_t kSendBatch = 500;

TEST_F(ConcurrencyTest, ManyConsumersDeliverEachMessageExactlyOnceAndNeverEarly) {
    Queue q = queue("load");
    Collector<DeliveryRecord> seen;

    std::vector<std::unique_ptr<Consumer>> consumers;
    for (int i = 0; i < kConsumers; ++i) {
        ConsumerOptions o;
        o.concurrency = 2;
        o.prefetch = 8;
        o.max_batch = 50;
        // Far longer than the test: any second delivery would be a double lease, not a retry.
        o.visibility_timeout = 10min;
        consumers.push_back(std::make_unique<Consumer>(
            leases(q),
            [&seen, i](const Delivery& d) -> Outcome {
                seen.add(record_of(d, i));
                return Ack{};
            },
            o));
    }
    for (auto& c : consumers) c->start();

    // Sent while the consumers run, with due times spread over a second.
    std::mt19937 random(20240501);
    std::uniform_int_distribution<int> delay_ms(0, 1000);
    std::map<std::string, SendResult> sent;
    std::map<std::string, std::string> payload_of;
    for (int first = 0; first < kMessages; first += static_cast<int>(kSendBatch)) {
        std::vector<Message> batch;
        for (int i = first; i < first + static_cast<int>(kSendBatch); ++i) {
            batch.push_back({"payload-" + std::to_string(i),
                             {.delay = std::chrono::milliseconds(delay_ms(random))}});
        }
        const std::vector<SendResult> results = q.send_batch(batch);
        ASSERT_EQ(results.size(), batch.size());
        for (std::size_t j = 0; j < results.size(); ++j) {
            payload_of[results[j].id] = batch[j].payload;
            sent[results[j].id] = results[j];
        }
    }
    ASSERT_EQ(sent.size(), static_cast<std::size_t>(kMessages));

    const bool all_seen = seen.wait_for(kMessages, 120s);
    for (auto& c : consumers) c->stop();
    for (auto& c : consumers) c->wait();
    EXPECT_TRUE(all_seen) << "only " << seen.size() << " of " << kMessages << " delivered";

    std::map<std::string, int> deliveries;
    int early = 0;
    int wrong = 0;
    std::vector<int> per_consumer(kConsumers, 0);
    for (const auto& r : seen.items()) {
        ++deliveries[r.id];
        ++per_consumer[static_cast<std::size_t>(r.consumer)];
        const auto it = sent.find(r.id);
        if (it == sent.end()) {
            ++wrong;
            continue;
        }
        if (r.delivered_at_ms < r.due_ms) ++early;
        if (r.due_ms != ms(it->second.due) || r.payload != payload_of[r.id] || r.attempt != 1) {
            ++wrong;
        }
    }
    int twice = 0;
    for (const auto& [id, count] : deliveries) twice += count > 1 ? 1 : 0;
    EXPECT_EQ(early, 0) << "deliveries before their due time";
    EXPECT_EQ(wrong, 0) << "deliveries that do not match what was sent";
    EXPECT_EQ(twice, 0) << "messages delivered more than once";
    EXPECT_EQ(deliveries.size(), sent.size()) << "messages lost";

    int busy_consumers = 0;
    for (int n : per_consumer) busy_consumers += n > 0 ? 1 : 0;
    EXPECT_GE(busy_consumers, 2);

    std::uint64_t acked = 0;
    std::uint64_t leases_lost = 0;
    for (const auto& c : consumers) {
        acked += c->stats().acked;
        leases_lost += c->stats().leases_lost;
    }
    EXPECT_EQ(acked, static_cast<std::uint64_t>(kMessages));
    EXPECT_EQ(leases_lost, 0u);
    const QueueStats st = admin(q).stats();
    EXPECT_EQ(st.scheduled + st.ready + st.in_flight + st.dead, 0u);
    EXPECT_EQ(st.totals.acked, static_cast<std::uint64_t>(kMessages));
    EXPECT_EQ(st.totals.delivered, static_cast<std::uint64_t>(kMessages));
    EXPECT_EQ(queue_keys("load"), empty_queue_keys("load"));
}

}  // namespace
}  // namespace delayq::test
