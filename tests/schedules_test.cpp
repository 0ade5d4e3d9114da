// Schedules, the role: each change is one script call that stores instants the client computed,
// sends the occurrence ahead as an ordinary message, and keeps the key contract. No scheduler
// runs here (scheduler_test.cpp has them): what is asserted is what one call writes.
#include <gtest/gtest.h>

#include <set>

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

ScheduleSpec every(Duration interval, std::string payload = "tick") {
    ScheduleSpec spec;
    spec.every = interval;
    spec.payload = std::move(payload);
    return spec;
}

class SchedulesTest : public RedisTest {
  protected:
    Schedules schedules(const std::string& queue = "q") { return client().schedules(queue); }
    std::optional<MessageInfo> message(const std::string& id, const std::string& queue = "q") {
        return client().admin(queue).get(id);
    }
};

TEST_F(SchedulesTest, AddSendsTheFirstOccurrenceAheadUnderItsDerivedId) {
    auto s = schedules();
    const PutResult put = s.add("tick", every(std::chrono::hours(1)));
    EXPECT_EQ(put.status, PutStatus::kCreated);
    const auto info = s.get("tick");
    ASSERT_TRUE(info);
    ASSERT_TRUE(info->next);
    // Anchored to the first upsert: one interval after it.
    EXPECT_EQ(ms(*info->next), ms(info->anchor) + 3'600'000);
    EXPECT_EQ(ms(put.next), ms(info->next));
    EXPECT_EQ(info->runs, 1U);
    EXPECT_FALSE(info->last_fired);  // sent ahead, not yet due
    EXPECT_EQ(info->last_outcome, LastOutcome::kNone);

    const std::string id = schedule_message_id("tick", *info->next);
    EXPECT_EQ(id, "schedule:tick:" + std::to_string(ms(*info->next)));
    const auto m = message(id);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->state, State::kScheduled);
    EXPECT_EQ(ms(m->due), ms(*info->next));
    EXPECT_EQ(m->payload, "tick");
    const QueueStats stats = client().admin("q").stats();
    EXPECT_EQ(stats.scheduled, 1U);
    EXPECT_EQ(stats.totals.sent, 1U);
    EXPECT_EQ(stats.totals.schedule_fired, 1U);
}

TEST_F(SchedulesTest, AddOfANameThatExistsChangesNothing) {
    auto s = schedules();
    ASSERT_EQ(s.add("tick", every(std::chrono::hours(1))).status, PutStatus::kCreated);
    const auto before = s.get("tick");
    EXPECT_EQ(s.add("tick", every(std::chrono::hours(2), "other")).status, PutStatus::kExists);
    const auto after = s.get("tick");
    ASSERT_TRUE(before && after);
    EXPECT_EQ(after->spec, before->spec);
    EXPECT_EQ(ms(after->updated), ms(before->updated));
    EXPECT_EQ(client().admin("q").stats().scheduled, 1U);
}

TEST_F(SchedulesTest, AnIdenticalUpsertChangesNothing) {
    auto s = schedules();
    ScheduleSpec spec;
    spec.cron = "0 9 * * MON-FRI";
    spec.tz = "Europe/Berlin";
    spec.payload = "report";
    ASSERT_EQ(s.upsert("daily", spec).status, PutStatus::kCreated);
    const auto before = s.get("daily");
    wait_for_server_time_after(before->updated);
    const PutResult again = s.upsert("daily", spec);
    EXPECT_EQ(again.status, PutStatus::kUnchanged);
    const auto after = s.get("daily");
    EXPECT_EQ(ms(after->updated), ms(before->updated));
    EXPECT_EQ(ms(after->next), ms(before->next));
    EXPECT_EQ(client().admin("q").stats().totals.sent, 1U);
}

TEST_F(SchedulesTest, AChangedSpecCancelsTheOccurrenceSentAheadAndSendsTheNewOne) {
    auto s = schedules();
    ASSERT_EQ(s.upsert("tick", every(std::chrono::hours(1))).status, PutStatus::kCreated);
    const auto before = s.get("tick");
    const PutResult changed = s.upsert("tick", every(std::chrono::hours(2)));
    EXPECT_EQ(changed.status, PutStatus::kUpdated);
    const auto after = s.get("tick");
    // The anchor stays the first upsert's: a changed interval keeps the schedule's phase.
    EXPECT_EQ(ms(after->anchor), ms(before->anchor));
    EXPECT_EQ(ms(after->next), ms(before->anchor) + 7'200'000);
    EXPECT_FALSE(message(schedule_message_id("tick", *before->next)));
    EXPECT_TRUE(message(schedule_message_id("tick", *after->next)));
    const QueueStats stats = client().admin("q").stats();
    EXPECT_EQ(stats.scheduled, 1U);
    EXPECT_EQ(stats.totals.cancelled, 1U);
}

TEST_F(SchedulesTest, PauseCancelsTheOccurrenceAheadAndResumeSendsTheNextOne) {
    auto s = schedules();
    s.add("tick", every(std::chrono::hours(1)));
    const auto before = s.get("tick");
    EXPECT_TRUE(s.pause("tick"));
    EXPECT_TRUE(s.pause("tick"));
    const auto paused = s.get("tick");
    EXPECT_TRUE(paused->paused);
    EXPECT_FALSE(paused->next);
    EXPECT_FALSE(message(schedule_message_id("tick", *before->next)));
    EXPECT_EQ(client().admin("q").stats().scheduled, 0U);

    EXPECT_TRUE(s.resume("tick"));
    const auto resumed = s.get("tick");
    EXPECT_FALSE(resumed->paused);
    ASSERT_TRUE(resumed->next);
    EXPECT_TRUE(message(schedule_message_id("tick", *resumed->next)));
    EXPECT_EQ(client().admin("q").stats().scheduled, 1U);
    // A changed spec keeps a pause: a deploy declaring its schedules resumes nothing.
    s.pause("tick");
    EXPECT_EQ(s.upsert("tick", every(std::chrono::hours(3))).status, PutStatus::kUpdated);
    EXPECT_TRUE(s.get("tick")->paused);
    EXPECT_EQ(client().admin("q").stats().scheduled, 0U);
    EXPECT_FALSE(s.resume("nothing"));
    EXPECT_FALSE(s.pause("nothing"));
}

TEST_F(SchedulesTest, RemoveCancelsTheOccurrenceAheadAndUnregistersAnEmptyQueue) {
    auto s = schedules();
    s.add("a", every(std::chrono::hours(1)));
    s.add("b", every(std::chrono::hours(1)));
    schedules("other").add("c", every(std::chrono::hours(1)));
    EXPECT_EQ(client().schedule_queues(), (std::vector<std::string>{"other", "q"}));
    EXPECT_TRUE(s.remove("a"));
    EXPECT_FALSE(s.remove("a"));
    EXPECT_FALSE(s.get("a"));
    EXPECT_EQ(client().schedule_queues(), (std::vector<std::string>{"other", "q"}));
    EXPECT_TRUE(s.remove("b"));
    EXPECT_EQ(client().schedule_queues(), (std::vector<std::string>{"other"}));
    EXPECT_EQ(client().admin("q").stats().scheduled, 0U);
    EXPECT_EQ(server().integer({"EXISTS", "dq:{q}:schedules", "dq:{q}:schedclaims"}), 0);
}

TEST_F(SchedulesTest, TriggerSendsOneOccurrenceNowAndLeavesTheScheduleAsItIs) {
    auto s = schedules();
    s.add("tick", every(std::chrono::hours(1)));
    const auto before = s.get("tick");
    const auto triggered = s.trigger("tick");
    ASSERT_TRUE(triggered);
    EXPECT_EQ(triggered->id, schedule_message_id("tick", triggered->instant));
    Queue q = queue();
    const Delivery d = fetch_one(q);
    EXPECT_EQ(d.id(), triggered->id);
    EXPECT_EQ(d.payload(), "tick");
    const auto after = s.get("tick");
    EXPECT_EQ(ms(after->next), ms(before->next));
    EXPECT_EQ(after->runs, before->runs);
    EXPECT_FALSE(s.trigger("nothing"));
}

TEST_F(SchedulesTest, ListPagesThroughEverySchedule) {
    auto s = schedules();
    std::set<std::string> added;
    for (int i = 0; i < 7; ++i) {
        const std::string name = "s" + std::to_string(i);
        s.add(name, every(std::chrono::hours(1)));
        added.insert(name);
    }
    std::set<std::string> listed;
    PageRequest page{.cursor = "", .limit = 2};
    for (int calls = 0; calls < 100; ++calls) {
        SchedulePage p = s.list(page);
        for (const ScheduleInfo& info : p.schedules) {
            EXPECT_TRUE(listed.insert(info.name).second) << info.name << " listed twice";
            EXPECT_EQ(info.spec.every, std::chrono::hours(1));
        }
        if (p.next_cursor.empty()) break;
        page.cursor = p.next_cursor;
    }
    EXPECT_EQ(listed, added);
}

TEST_F(SchedulesTest, NextComputesOccurrencesFromTheStoredSpecAcrossADaylightSavingChange) {
    auto s = schedules();
    ScheduleSpec spec;
    spec.cron = "0 9 * * MON-FRI";
    spec.tz = "Europe/Berlin";
    s.add("report", spec);
    // Friday 2024-03-29; Berlin moves to summer time on Sunday the 31st, so 09:00 is 08:00Z on
    // Friday and 07:00Z from Monday on.
    const auto next = s.next("report", 3, parse_time("2024-03-29T07:30:00Z"));
    ASSERT_TRUE(next);
    ASSERT_EQ(next->size(), 3U);
    EXPECT_EQ(format_time((*next)[0]), "2024-03-29T08:00:00.000Z");
    EXPECT_EQ(format_time((*next)[1]), "2024-04-01T07:00:00.000Z");
    EXPECT_EQ(format_time((*next)[2]), "2024-04-02T07:00:00.000Z");
    EXPECT_FALSE(s.next("nothing", 3));
    EXPECT_THROW(s.next("report", 0), InvalidArgument);
}

TEST_F(SchedulesTest, BadInputIsRefusedAndWritesNothing) {
    auto s = schedules();
    ScheduleSpec short_interval = every(std::chrono::milliseconds(500));
    ScheduleSpec bad_zone;
    bad_zone.cron = "0 9 * * *";
    bad_zone.tz = "Mars/Olympus_Mons";
    ScheduleSpec bad_cron;
    bad_cron.cron = "61 * * * *";
    ScheduleSpec both = every(std::chrono::hours(1));
    both.cron = "* * * * *";
    ScheduleSpec ends_first = every(std::chrono::hours(1));
    ends_first.start = parse_time("2030-01-02T00:00:00Z");
    ends_first.end = parse_time("2030-01-01T00:00:00Z");
    ScheduleSpec too_big =
        every(std::chrono::hours(1), std::string(kDefaultMaxPayloadBytes + 1, 'x'));
    for (const ScheduleSpec& spec :
         {short_interval, bad_zone, bad_cron, both, ends_first, too_big}) {
        EXPECT_THROW(s.add("x", spec), InvalidArgument);
        EXPECT_THROW(s.upsert("x", spec), InvalidArgument);
    }
    EXPECT_THROW(s.add("has space", every(std::chrono::hours(1))), InvalidArgument);
    EXPECT_THROW(s.add(std::string(kMaxScheduleNameBytes + 1, 'n'), every(std::chrono::hours(1))),
                 InvalidArgument);
    EXPECT_THROW(s.add("", every(std::chrono::hours(1))), InvalidArgument);
    EXPECT_TRUE(queue_keys().empty());
    EXPECT_TRUE(client().schedule_queues().empty());
}

TEST_F(SchedulesTest, TheMessageTemplateAndItsExpiryFollowTheOccurrence) {
    auto s = schedules();
    ScheduleSpec spec = every(std::chrono::hours(1), "body");
    spec.max_attempts = 3;
    spec.expire_after = std::chrono::minutes(10);
    s.add("tick", spec);
    const auto info = s.get("tick");
    const auto m = message(schedule_message_id("tick", *info->next));
    ASSERT_TRUE(m);
    EXPECT_EQ(m->max_attempts, 3);
    ASSERT_TRUE(m->expire_at);
    // Counted from the occurrence's instant, not from when it was sent ahead.
    EXPECT_EQ(ms(*m->expire_at), ms(*info->next) + 600'000);
}

TEST_F(SchedulesTest, MaxRunsEndsTheSchedule) {
    auto s = schedules();
    ScheduleSpec spec = every(std::chrono::hours(1));
    spec.max_runs = 1;
    s.add("once", spec);
    const auto info = s.get("once");
    EXPECT_EQ(info->runs, 1U);
    // Nothing left to claim: the occurrence sent is the last.
    EXPECT_EQ(server().integer({"ZCARD", "dq:{q}:schedclaims"}), 0);
    EXPECT_EQ(client().admin("q").stats().scheduled, 1U);
}

TEST_F(SchedulesTest, DeletingTheQueueRemovesItsSchedules) {
    auto s = schedules();
    s.add("tick", every(std::chrono::hours(1)));
    const DeleteResult deleted = client().admin("q").delete_queue();
    EXPECT_EQ(deleted.status, DeleteStatus::kDeleted);
    EXPECT_TRUE(queue_keys().empty());
    EXPECT_FALSE(s.get("tick"));
    EXPECT_TRUE(client().schedule_queues().empty());
}

TEST_F(SchedulesTest, AStartInTheFutureIsTheFirstOccurrenceOfAnInterval) {
    auto s = schedules();
    ScheduleSpec spec = every(std::chrono::hours(1));
    spec.start = client().server_time() + std::chrono::hours(5);
    s.add("later", spec);
    const auto info = s.get("later");
    EXPECT_EQ(ms(*info->next), ms(*spec.start));
}

// The claim and the poll, in the engine of this run: a scheduler sends the occurrence after the
// one the add sent, once that one fell due.
TEST_F(SchedulesTest, ASchedulerClaimsTheOccurrenceAfterTheOneSentAhead) {
    auto s = schedules();
    s.add("tick", every(std::chrono::seconds(1)));
    const auto first = s.get("tick");
    Scheduler scheduler(client(),
                        SchedulerOptions{.queues = {"q"}, .poll = std::chrono::milliseconds(100)});
    scheduler.start();
    ASSERT_TRUE(eventually([&] { return s.get("tick")->runs >= 2; }));
    scheduler.stop();
    scheduler.wait();
    const auto after = s.get("tick");
    EXPECT_GE(ms(after->last_fired), ms(first->next));
    EXPECT_TRUE(message(schedule_message_id("tick", *first->next)));
    EXPECT_TRUE(message(schedule_message_id("tick", from_ms(ms(first->next) + 1000))));
    EXPECT_EQ(scheduler.stats().redis_errors, 0U);
}

}  // namespace
}  // namespace delayq::test
