#include <algorithm>
#include <string>
#include <vector>

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

class DeadLetterTest : public RedisTest {
  protected:
    // Sends `count` messages and dead-letters them by rejection, in send order.
    std::vector<std::string> reject_new(Queue& q, int count, const std::string& error = "bad") {
        std::vector<std::string> ids;
        for (int i = 0; i < count; ++i) {
            const auto [s, d] =
                send_and_fetch(q, "payload " + std::to_string(i), {.max_attempts = 5});
            EXPECT_EQ(d.id(), s.id);
            EXPECT_EQ(leases(q).reject(lease_of(d), Reject{.error = error}).status,
                      LeaseStatus::kDeadLettered);
            ids.push_back(s.id);
        }
        return ids;
    }

    // Many dead letters cheaply: a batch that expires before anyone fetches it.
    std::vector<std::string> expire_new(Queue& q, std::size_t count) {
        std::vector<std::string> ids;
        TimePoint last_due{};
        for (std::size_t sent = 0; sent < count; sent += 1000) {
            std::vector<Message> batch(std::min<std::size_t>(1000, count - sent),
                                       Message{"m", {.expire_after = 50ms}});
            for (const auto& r : q.send_batch(batch)) {
                ids.push_back(r.id);
                last_due = std::max(last_due, r.due);
            }
        }
        wait_for_server_time_after(last_due + 50ms);
        std::size_t dead = 0;
        while (dead < count) {
            const FetchResult f = leases(q).fetch(1000, 30s);
            EXPECT_TRUE(f.deliveries.empty());
            if (f.dead_lettered.empty()) break;
            dead += f.dead_lettered.size();
        }
        EXPECT_EQ(dead, count);
        return ids;
    }
};

TEST_F(DeadLetterTest, ListShowsReasonLastErrorAndAttempts) {
    Queue q = queue();
    const std::vector<std::string> ids = reject_new(q, 2, "it broke");
    const std::vector<MessageInfo> dead = admin(q).list(State::kDead).messages;
    ASSERT_EQ(dead.size(), 2u);
    EXPECT_EQ(dead[0].id, ids[0]);
    EXPECT_EQ(dead[1].id, ids[1]);
    for (const auto& m : dead) {
        EXPECT_EQ(m.state, State::kDead);
        EXPECT_EQ(m.dead_reason, "rejected");
        EXPECT_EQ(m.last_error, "it broke");
        EXPECT_EQ(m.attempts, 1);
        EXPECT_EQ(m.max_attempts, 5);
        ASSERT_TRUE(m.dead_at);
        EXPECT_GE(ms(*m.dead_at), ms(m.due));
    }
    EXPECT_EQ(dead[0].payload, "payload 0");
    EXPECT_EQ(admin(q).stats().dead, 2u);
}

TEST_F(DeadLetterTest, RequeueOneGivesFreshAttemptsAndNoExpiry) {
    Queue q = queue();
    const auto [s, d1] = send_and_fetch(q, "x", {.max_attempts = 2, .expire_after = 1h});
    leases(q).nack(lease_of(d1), Nack{.delay = 0ms, .error = "e1"});
    const Delivery d2 = fetch_one(q);
    ASSERT_EQ(leases(q).nack(lease_of(d2), Nack{.delay = 0ms, .error = "e2"}).status,
              LeaseStatus::kDeadLettered);

    const std::int64_t before = server().time_ms();
    const std::vector<std::string> ids = {s.id, "no-such-id"};
    EXPECT_EQ(admin(q).requeue({.ids = ids}), 1u);
    const auto info = admin(q).get(s.id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->state, State::kReady);
    EXPECT_EQ(info->attempts, 0);
    EXPECT_EQ(info->max_attempts, 2);
    EXPECT_FALSE(info->expire_at);
    EXPECT_EQ(info->dead_reason, "");
    EXPECT_GE(ms(info->due), before);

    const Delivery again = fetch_one(q);
    EXPECT_EQ(again.id(), s.id);
    EXPECT_EQ(again.attempt(), 1);
    EXPECT_EQ(again.payload(), "x");
    const QueueStats st = admin(q).stats();
    EXPECT_EQ(st.dead, 0u);
    EXPECT_EQ(st.totals.requeued, 1u);
}

TEST_F(DeadLetterTest, RequeueSkipsMessagesThatAreNotDead) {
    Queue q = queue();
    const std::vector<std::string> dead = reject_new(q, 1);
    const SendResult pending = q.send("p", {.delay = 1h});
    const std::vector<std::string> ids = {pending.id, dead[0]};
    EXPECT_EQ(admin(q).requeue({.ids = ids}), 1u);
    const auto info = admin(q).get(pending.id);
    ASSERT_TRUE(info);
    EXPECT_EQ(info->state, State::kScheduled);
    EXPECT_EQ(ms(info->due), ms(pending.due));
}

TEST_F(DeadLetterTest, RequeueSeveral) {
    Queue q = queue();
    const std::vector<std::string> ids = reject_new(q, 4);
    const std::vector<std::string> some = {ids[0], ids[2]};
    EXPECT_EQ(admin(q).requeue({.ids = some}), 2u);
    const QueueStats st = admin(q).stats();
    EXPECT_EQ(st.dead, 2u);
    EXPECT_EQ(st.ready, 2u);
    EXPECT_EQ(admin(q).get(ids[1])->state, State::kDead);
    EXPECT_EQ(admin(q).get(ids[2])->state, State::kReady);
}

TEST_F(DeadLetterTest, RequeueAllMovesEveryDeadLetter) {
    Queue q = queue();
    const std::vector<std::string> ids = expire_new(q, 1500);
    EXPECT_EQ(admin(q).stats().dead, 1500u);
    EXPECT_EQ(admin(q).requeue({.all = true}), 1500u);
    const QueueStats st = admin(q).stats();
    EXPECT_EQ(st.dead, 0u);
    EXPECT_EQ(st.ready, 1500u);
    EXPECT_EQ(st.totals.requeued, 1500u);
    EXPECT_EQ(admin(q).requeue({.all = true}), 0u);
    // No expiry any more: they are delivered, not dead-lettered again.
    const FetchResult f = leases(q).fetch(1000, 30s);
    EXPECT_EQ(f.deliveries.size(), 1000u);
    EXPECT_TRUE(f.dead_lettered.empty());
}

TEST_F(DeadLetterTest, LongListsOfIdsAreHandledWhole) {
    Queue q = queue();
    const std::vector<std::string> ids = expire_new(q, 1500);
    const std::vector<std::string> first(ids.begin(), ids.begin() + 1200);
    EXPECT_EQ(admin(q).requeue({.ids = first}), 1200u);
    EXPECT_EQ(admin(q).purge({.ids = ids}), 300u);
    const QueueStats st = admin(q).stats();
    EXPECT_EQ(st.dead, 0u);
    EXPECT_EQ(st.ready, 1200u);
}

TEST_F(DeadLetterTest, PurgeOneAndSeveral) {
    Queue q = queue();
    const std::vector<std::string> ids = reject_new(q, 4);
    const SendResult pending = q.send("p");
    const std::vector<std::string> one = {ids[1]};
    EXPECT_EQ(admin(q).purge({.ids = one}), 1u);
    EXPECT_FALSE(admin(q).get(ids[1]));
    const std::vector<std::string> several = {ids[0], ids[3], pending.id, "missing"};
    EXPECT_EQ(admin(q).purge({.ids = several}), 2u);
    EXPECT_FALSE(admin(q).get(ids[0]));
    EXPECT_FALSE(admin(q).get(ids[3]));
    EXPECT_EQ(admin(q).get(pending.id)->state, State::kReady);
    EXPECT_EQ(admin(q).get(ids[2])->state, State::kDead);
    const QueueStats st = admin(q).stats();
    EXPECT_EQ(st.dead, 1u);
    EXPECT_EQ(st.totals.purged, 3u);
}

TEST_F(DeadLetterTest, RepeatedIdsCountOnce) {
    Queue q = queue();
    const std::vector<std::string> ids = reject_new(q, 2);
    const std::vector<std::string> twice = {ids[0], ids[0]};
    EXPECT_EQ(admin(q).requeue({.ids = twice}), 1u);
    const std::vector<std::string> again = {ids[1], ids[1], ids[1]};
    EXPECT_EQ(admin(q).purge({.ids = again}), 1u);
    const QueueStats st = admin(q).stats();
    EXPECT_EQ(st.totals.requeued, 1u);
    EXPECT_EQ(st.totals.purged, 1u);
    EXPECT_EQ(st.ready, 1u);
    EXPECT_EQ(st.dead, 0u);
}

TEST_F(DeadLetterTest, PurgeAllLeavesOnlyCounters) {
    Queue q = queue();
    expire_new(q, 1500);
    reject_new(q, 2);
    EXPECT_EQ(admin(q).purge({.all = true}), 1502u);
    EXPECT_EQ(admin(q).stats().dead, 0u);
    EXPECT_EQ(admin(q).purge({.all = true}), 0u);
    EXPECT_EQ(queue_keys(), empty_queue_keys());
}

TEST_F(DeadLetterTest, RetentionByCountDropsTheOldest) {
    Queue q = queue();
    admin(q).update_settings({.dead_max_count = 3, .dead_max_age = 0ms});
    const std::vector<std::string> ids = reject_new(q, 5);
    const std::vector<MessageInfo> dead = admin(q).list(State::kDead).messages;
    ASSERT_EQ(dead.size(), 3u);
    EXPECT_EQ(dead[0].id, ids[2]);
    EXPECT_EQ(dead[1].id, ids[3]);
    EXPECT_EQ(dead[2].id, ids[4]);
    EXPECT_FALSE(admin(q).get(ids[0]));
    EXPECT_FALSE(admin(q).get(ids[1]));
    EXPECT_EQ(server().hlen(queue_key("q", "msg")), 3);
    EXPECT_EQ(server().hlen(queue_key("q", "err")), 3);
    EXPECT_EQ(admin(q).stats().totals.dead_trimmed, 2u);
}

TEST_F(DeadLetterTest, RetentionByAgeDropsOldDeadLetters) {
    Queue q = queue();
    admin(q).update_settings({.dead_max_count = 0, .dead_max_age = 300ms});
    const std::vector<std::string> old_ids = reject_new(q, 1);
    const auto old_info = admin(q).get(old_ids[0]);
    ASSERT_TRUE(old_info && old_info->dead_at);
    wait_for_server_time_after(*old_info->dead_at + 300ms);
    const std::vector<std::string> new_ids = reject_new(q, 1);
    EXPECT_FALSE(admin(q).get(old_ids[0]));
    ASSERT_TRUE(admin(q).get(new_ids[0]));
    EXPECT_EQ(admin(q).stats().dead, 1u);
    EXPECT_EQ(admin(q).stats().totals.dead_trimmed, 1u);
}

TEST_F(DeadLetterTest, RetentionAlsoBoundsDeadLettersMadeByFetch) {
    Queue q = queue();
    admin(q).update_settings({.dead_max_count = 10, .dead_max_age = 0ms});
    expire_new(q, 25);
    EXPECT_EQ(admin(q).stats().dead, 10u);
    EXPECT_EQ(admin(q).stats().totals.dead_trimmed, 15u);
}

TEST_F(DeadLetterTest, UnboundedRetentionKeepsEverything) {
    Queue q = queue();
    admin(q).update_settings({.dead_max_count = 0, .dead_max_age = 0ms});
    reject_new(q, 6);
    EXPECT_EQ(admin(q).stats().dead, 6u);
    EXPECT_EQ(admin(q).stats().totals.dead_trimmed, 0u);
}

}  // namespace
}  // namespace delayq::test
