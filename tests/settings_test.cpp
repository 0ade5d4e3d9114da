// Queue settings stored in Redis (issue 16, section 2): shared by every client of a queue, read
// by the scripts; pause and resume; the layout version; delete.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/fixture.hpp"
#include "support/handlers.hpp"
#include "support/recorder.hpp"

namespace delayq::test {
namespace {

using SettingsTest = RedisTest;

// How many FCALL and EVALSHA calls the server has run: a consumer's fetches are the only ones
// while a test waits on this.
long long script_calls(const RedisServer& server) {
    const std::string info = server.command({"INFO", "commandstats"}).str;
    long long calls = 0;
    for (const std::string field : {"cmdstat_fcall:calls=", "cmdstat_evalsha:calls="}) {
        const auto pos = info.find(field);
        if (pos != std::string::npos) calls += std::stoll(info.substr(pos + field.size()));
    }
    return calls;
}

TEST_F(SettingsTest, AQueueNeverConfiguredHasTheDefaultsAndNoKeys) {
    Queue q = queue();
    const QueueSettings s = admin(q).settings();
    const QueueSettings defaults{};
    EXPECT_EQ(s.max_attempts, defaults.max_attempts);
    EXPECT_EQ(s.backoff.initial, defaults.backoff.initial);
    EXPECT_EQ(s.backoff.max, defaults.backoff.max);
    EXPECT_EQ(s.backoff.multiplier, defaults.backoff.multiplier);
    EXPECT_EQ(s.backoff.jitter, defaults.backoff.jitter);
    EXPECT_EQ(s.dead_max_count, defaults.dead_max_count);
    EXPECT_EQ(s.dead_max_age, defaults.dead_max_age);
    EXPECT_FALSE(s.paused);
    EXPECT_EQ(s.layout, 0);
    EXPECT_EQ(server().dbsize(), 0);
}

// The scripts read the whole settings hash (read_settings in lib/settings.lua): a field that is
// no setting is ignored, and a value that is not a number (written by hand) leaves the default.
TEST_F(SettingsTest, FieldsThatAreNoSettingOrNoNumberLeaveTheDefaults) {
    Queue q = queue();
    admin(q).update_settings({.dead_max_count = 7});
    server().command(
        {"HSET", queue_key("q", "settings"), "colour", "blue", "max_attempts", "many"});
    const QueueSettings s = admin(q).settings();
    EXPECT_EQ(s.max_attempts, QueueSettings{}.max_attempts);
    EXPECT_EQ(s.dead_max_count, 7u);
    EXPECT_FALSE(s.paused);
    EXPECT_GT(s.layout, 0);
    const auto [sent, d] = send_and_fetch(q, "x");
    EXPECT_EQ(d.max_attempts(), QueueSettings{}.max_attempts);
    EXPECT_EQ(leases(q).ack(lease_of(d)).status, LeaseStatus::kAcked);
}

TEST_F(SettingsTest, TwoClientsSeeOneQueuesSettings) {
    Queue q = queue();
    Client other(server().url());
    const QueueSettings after = other.admin("q").update_settings(
        {.max_attempts = 4,
         .backoff = Backoff{.initial = 2s, .max = 1min, .multiplier = 3, .jitter = 0.5},
         .dead_max_count = 7,
         .dead_max_age = 1h});
    const QueueSettings seen = admin(q).settings();
    for (const QueueSettings& s : {after, seen}) {
        EXPECT_EQ(s.max_attempts, 4);
        EXPECT_EQ(s.backoff.initial, 2s);
        EXPECT_EQ(s.backoff.max, 1min);
        EXPECT_EQ(s.backoff.multiplier, 3.0);
        EXPECT_EQ(s.backoff.jitter, 0.5);
        EXPECT_EQ(s.dead_max_count, 7u);
        EXPECT_EQ(s.dead_max_age, 1h);
        EXPECT_GT(s.layout, 0);
    }
    // An update changes only what it names.
    const QueueSettings partial = admin(q).update_settings({.dead_max_count = 9});
    EXPECT_EQ(partial.dead_max_count, 9u);
    EXPECT_EQ(partial.max_attempts, 4);
    EXPECT_EQ(partial.backoff.initial, 2s);
}

TEST_F(SettingsTest, MaxAttemptsIsReadWhenAMessageRunsOut) {
    Queue q = queue();
    const auto [s, d] = send_and_fetch(q, "x");
    EXPECT_EQ(d.max_attempts(), QueueSettings{}.max_attempts);
    // Lowered while the message is in flight: its next failure is its last.
    admin(q).update_settings({.max_attempts = 1});
    const LeaseResult r = leases(q).nack(d.lease(), Nack{.delay = 0ms, .error = "boom"});
    EXPECT_EQ(r.status, LeaseStatus::kDeadLettered);
    // A message's own max_attempts wins over the setting.
    const auto [s2, d2] = send_and_fetch(q, "y", {.max_attempts = 3});
    EXPECT_EQ(leases(q).nack(d2.lease(), Nack{.delay = 0ms}).status, LeaseStatus::kRetrying);
}

TEST_F(SettingsTest, NackWithoutDelayUsesTheQueuesBackoff) {
    Queue q = queue();
    admin(q).update_settings({.backoff = Backoff{.initial = 1h, .max = 1h, .jitter = 0}});
    const auto [s, d] = send_and_fetch(q, "x");
    const std::int64_t before = server().time_ms();
    const LeaseResult r = leases(q).nack(d.lease(), Nack{.error = "e"});
    const std::int64_t after = server().time_ms();
    ASSERT_EQ(r.status, LeaseStatus::kRetrying);
    EXPECT_GE(ms(r.at), before + 3'600'000);
    EXPECT_LE(ms(r.at), after + 3'600'000);
}

TEST_F(SettingsTest, AConsumersOwnBackoffWinsOverTheQueues) {
    Queue q = queue();
    admin(q).update_settings({.backoff = Backoff{.initial = 1h, .max = 1h, .jitter = 0}});
    const SendResult s = q.send("x");
    Collector<DeliveryRecord> seen;
    Consumer c(leases(q), recording(seen, [](const Delivery&) -> Outcome { return Nack{}; }),
               {.backoff = Backoff{.initial = 0ms, .max = 0ms, .jitter = 0}});
    c.start();
    // Retried at once, not in an hour.
    EXPECT_TRUE(seen.wait_for(2));
    c.stop();
    c.wait();
}

TEST_F(SettingsTest, PausedQueueLeasesNothingButTakesSends) {
    Queue q = queue();
    admin(q).pause();
    EXPECT_TRUE(admin(q).settings().paused);
    const SendResult s = q.send("x");
    EXPECT_EQ(admin(q).get(s.id)->state, State::kReady);
    const FetchResult f = leases(q).fetch(10, 30s);
    EXPECT_TRUE(f.deliveries.empty());
    EXPECT_EQ(admin(q).stats().ready, 1u);
    admin(q).resume();
    EXPECT_FALSE(admin(q).settings().paused);
    EXPECT_EQ(leases(q).fetch(10, 30s).deliveries.size(), 1u);
}

TEST_F(SettingsTest, PausedQueueStillTakesBackLapsedLeases) {
    Queue q = queue();
    const auto [s, d] = send_and_fetch(q, "x", {}, 1ms);
    admin(q).pause();
    wait_for_server_time_after(d.delivered_at() + 1ms);
    EXPECT_TRUE(leases(q).fetch(10, 30s).deliveries.empty());
    EXPECT_EQ(admin(q).get(s.id)->state, State::kReady);
}

TEST_F(SettingsTest, ResumeWakesASleepingConsumer) {
    Queue q = queue();
    admin(q).pause();
    q.send("x");
    Collector<DeliveryRecord> seen;
    // Without a signal this consumer would not look again for an hour.
    Consumer c(leases(q), recording(seen), {.idle_check = 1h});
    const long long before = script_calls(server());
    c.start();
    ASSERT_TRUE(eventually([&] { return script_calls(server()) > before; }));
    EXPECT_EQ(seen.size(), 0u);
    admin(q).resume();
    EXPECT_TRUE(seen.wait_for(1));
    c.stop();
    c.wait();
}

TEST_F(SettingsTest, AQueueOfAnotherLayoutIsRefusedClearly) {
    Queue q = queue();
    const SendResult s = q.send("x", {.delay = 1h});
    server().command({"HSET", queue_key("q", "settings"), "layout", "999"});
    const std::vector<std::string> before = queue_keys();
    const auto refused = [](auto&& call) {
        try {
            call();
        } catch (const ConfigurationError& e) {
            return std::string(e.what()).find("layout version 999") != std::string::npos;
        }
        return false;
    };
    const Lease lease(s.id, 1);
    EXPECT_TRUE(refused([&] { q.send("y"); }));
    EXPECT_TRUE(refused([&] { q.cancel(s.id); }));
    EXPECT_TRUE(refused([&] { q.reschedule(s.id, 1s); }));
    EXPECT_TRUE(refused([&] { admin(q).get(s.id); }));
    EXPECT_TRUE(refused([&] { admin(q).stats(); }));
    EXPECT_TRUE(refused([&] { admin(q).list(State::kScheduled); }));
    EXPECT_TRUE(refused([&] { admin(q).requeue({.all = true}); }));
    EXPECT_TRUE(refused([&] { admin(q).purge({.all = true}); }));
    EXPECT_TRUE(refused([&] { admin(q).settings(); }));
    EXPECT_TRUE(refused([&] { admin(q).pause(); }));
    EXPECT_TRUE(refused([&] { admin(q).delete_queue(); }));
    EXPECT_TRUE(refused([&] { leases(q).fetch(1, 30s); }));
    EXPECT_TRUE(refused([&] { leases(q).ack(lease); }));
    EXPECT_TRUE(refused([&] { leases(q).nack(lease, Nack{}); }));
    EXPECT_TRUE(refused([&] { leases(q).extend(lease, 30s); }));
    EXPECT_TRUE(refused([&] { leases(q).release(lease); }));
    EXPECT_EQ(queue_keys(), before);
    EXPECT_EQ(server().hlen(queue_key("q", "msg")), 1);
    // Forced, delete removes a queue of any layout.
    EXPECT_EQ(admin(q).delete_queue(true).status, DeleteStatus::kDeleted);
    EXPECT_TRUE(queue_keys().empty());
}

TEST_F(SettingsTest, DeleteIsRefusedWhileMessagesAreInFlight) {
    Queue q = queue();
    q.send("dead", {.max_attempts = 1});
    const Delivery d = fetch_one(q);
    leases(q).reject(d.lease(), {.error = "no"});
    q.send("scheduled", {.delay = 1h});
    const auto [s, leased] = send_and_fetch(q, "leased");
    const DeleteResult refused = admin(q).delete_queue();
    EXPECT_EQ(refused.status, DeleteStatus::kInFlight);
    EXPECT_EQ(refused.in_flight, 1u);
    EXPECT_EQ(admin(q).stats().scheduled, 1u);
    EXPECT_EQ(admin(q).stats().dead, 1u);

    const DeleteResult deleted = admin(q).delete_queue(true);
    EXPECT_EQ(deleted.status, DeleteStatus::kDeleted);
    EXPECT_EQ(deleted.pending, 1u);
    EXPECT_EQ(deleted.in_flight, 1u);
    EXPECT_EQ(deleted.dead, 1u);
    EXPECT_TRUE(queue_keys().empty());
    // The consumer's late answer finds nothing, and writes nothing.
    EXPECT_EQ(leases(q).ack(leased.lease()).status, LeaseStatus::kLost);
    EXPECT_TRUE(queue_keys().empty());
}

TEST_F(SettingsTest, DeleteRemovesEveryKeyAndTheQueueStartsAfresh) {
    Queue q = queue();
    admin(q).update_settings({.max_attempts = 2});
    q.send_batch(std::vector<Message>(300, {"m", {.delay = 1h}}));
    q.send("big", {.delay = 2h});
    ASSERT_FALSE(queue_keys().empty());
    const DeleteResult r = admin(q).delete_queue();
    EXPECT_EQ(r.status, DeleteStatus::kDeleted);
    EXPECT_EQ(r.pending, 301u);
    EXPECT_TRUE(queue_keys().empty());
    EXPECT_EQ(admin(q).settings().max_attempts, QueueSettings{}.max_attempts);
    const SendResult again = q.send("x");
    EXPECT_TRUE(admin(q).get(again.id));
}

TEST_F(SettingsTest, BadSettingsWriteNothing) {
    Queue q = queue();
    admin(q).update_settings({.max_attempts = 5});
    const std::string before = server().command({"DUMP", queue_key("q", "settings")}).str;
    EXPECT_THROW(
        admin(q).update_settings({.max_attempts = 6, .dead_max_count = std::size_t{1} << 50}),
        InvalidArgument);
    EXPECT_THROW(admin(q).update_settings({.backoff = Backoff{.multiplier = 0.5}}),
                 InvalidArgument);
    EXPECT_THROW(admin(q).update_settings({.backoff = Backoff{.jitter = 2}}), InvalidArgument);
    EXPECT_EQ(server().command({"DUMP", queue_key("q", "settings")}).str, before);
    EXPECT_EQ(admin(q).settings().max_attempts, 5);
}

}  // namespace
}  // namespace delayq::test
