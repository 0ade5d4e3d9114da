// Schedulers against a real Redis: several at once send each occurrence once, missed
// occurrences follow the catch-up policy, and changes made while a scheduler runs take effect.
// Intervals of 1 s keep these tests to seconds; the waits are for events (a message, a counter),
// never a sleep standing in for one.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

constexpr std::int64_t kSecond = 1000;

ScheduleSpec every_second(CatchUp catch_up = CatchUp::kOne, Overlap overlap = Overlap::kAllow) {
    ScheduleSpec spec;
    spec.every = std::chrono::seconds(1);
    spec.payload = "tick";
    spec.catch_up = catch_up;
    spec.overlap = overlap;
    return spec;
}

SchedulerOptions fast(std::vector<std::string> queues = {}) {
    SchedulerOptions options;
    options.queues = std::move(queues);
    options.poll = std::chrono::milliseconds(200);
    options.discover = std::chrono::milliseconds(200);
    return options;
}

class SchedulerTest : public RedisTest {
  protected:
    // The instants of the occurrence messages in the queue (any state), by the id's suffix.
    std::set<std::int64_t> occurrences(const std::string& queue, const std::string& name) {
        std::set<std::int64_t> out;
        const std::string prefix = "schedule:" + name + ":";
        QueueAdmin admin = client().admin(queue);
        for (const State state :
             {State::kScheduled, State::kReady, State::kInFlight, State::kDead}) {
            PageRequest page{.cursor = "", .limit = 1000};
            for (;;) {
                MessagePage p = admin.list(state, page);
                for (const MessageInfo& m : p.messages) {
                    if (m.id.rfind(prefix, 0) != 0) continue;
                    const std::int64_t instant = std::stoll(m.id.substr(prefix.size()));
                    EXPECT_EQ(ms(m.due), instant) << m.id << ": due at its occurrence's instant";
                    out.insert(instant);
                }
                if (p.next_cursor.empty()) break;
                page.cursor = p.next_cursor;
            }
        }
        return out;
    }
};

TEST_F(SchedulerTest, SeveralSchedulersSendEachOccurrenceOnce) {
    auto s = client().schedules("q");
    s.add("tick", every_second());
    const auto anchor = ms(s.get("tick")->anchor);
    std::vector<std::unique_ptr<Client>> clients;
    std::vector<std::unique_ptr<Scheduler>> schedulers;
    for (int i = 0; i < 3; ++i) {
        clients.push_back(std::make_unique<Client>(server().url()));
        schedulers.push_back(std::make_unique<Scheduler>(*clients.back(), fast()));
        schedulers.back()->start();
    }
    // Consumers take each occurrence as it falls due; every id is a distinct occurrence.
    Queue q = queue();
    std::vector<std::string> ids;
    ASSERT_TRUE(eventually([&] {
        for (const Delivery& d : leases(q).fetch(10, std::chrono::seconds(30)).deliveries) {
            ids.push_back(d.id());
            EXPECT_GE(ms(d.delivered_at()), ms(d.due())) << "delivered early: " << d.id();
            leases(q).ack(d.lease());
        }
        return ids.size() >= 5;
    }));
    for (auto& scheduler : schedulers) scheduler->stop();
    for (auto& scheduler : schedulers) scheduler->wait();
    std::set<std::string> distinct(ids.begin(), ids.end());
    EXPECT_EQ(distinct.size(), ids.size()) << "an occurrence was delivered twice";
    std::set<std::int64_t> instants;
    for (const std::string& id : ids) instants.insert(std::stoll(id.substr(id.rfind(':') + 1)));
    // Consecutive occurrences from the first, none skipped.
    std::int64_t expected = anchor + kSecond;
    for (const std::int64_t t : instants) {
        EXPECT_EQ(t, expected);
        expected += kSecond;
    }
    std::uint64_t fired = 0;
    for (auto& scheduler : schedulers) fired += scheduler->stats().fired;
    const auto info = s.get("tick");
    // The add sent the first; the schedulers together sent the rest, each once.
    EXPECT_EQ(info->runs, fired + 1);
    EXPECT_EQ(client().admin("q").stats().totals.schedule_fired, info->runs);
    EXPECT_EQ(info->missed, 0U);
}

// Schedules of each catch-up policy, and no scheduler for 10 s; then one starts. With
// occurrences every second and the 5 s grace, F being the occurrence it sends ahead: those
// up to F - 6 s were missed, F - 5 s .. F - 1 s are late but sent, and the policy decides the
// rest (the claim happens in [F - 1 s, F), so F - 6 s is the newest missed).
TEST_F(SchedulerTest, OccurrencesMissedWhileNoSchedulerRanFollowTheCatchUpPolicy) {
    const std::map<std::string, CatchUp> policies = {
        {"none", CatchUp::kNone}, {"one", CatchUp::kOne}, {"all", CatchUp::kAll}};
    std::map<std::string, std::int64_t> first;
    for (const auto& [queue, policy] : policies) {
        auto s = client().schedules(queue);
        s.add("tick", every_second(policy));
        first[queue] = ms(*s.get("tick")->next);
    }
    const TimePoint down_until = client().server_time() + std::chrono::seconds(10);
    wait_for_server_time_after(down_until);
    Scheduler scheduler(client(), fast());
    scheduler.start();
    // Each schedule's claim sends an occurrence ahead, past the gap.
    for (const auto& [queue, policy] : policies) {
        ASSERT_TRUE(eventually([&] {
            const auto info = client().schedules(queue).get("tick");
            return info->next && ms(*info->next) > ms(down_until);
        })) << queue;
    }
    scheduler.stop();
    scheduler.wait();
    for (const auto& [queue, policy] : policies) {
        SCOPED_TRACE(queue);
        const auto info = client().schedules(queue).get("tick");
        const std::set<std::int64_t> sent = occurrences(queue, "tick");
        ASSERT_FALSE(sent.empty());
        const std::int64_t f = *sent.rbegin();
        // Every occurrence from the first to F is either sent or counted missed.
        std::vector<std::int64_t> absent;
        for (std::int64_t t = first[queue]; t <= f; t += kSecond) {
            if (!sent.contains(t)) absent.push_back(t);
        }
        EXPECT_EQ(absent.size() + sent.size(),
                  static_cast<std::size_t>((f - first[queue]) / kSecond + 1));
        EXPECT_EQ(info->missed, absent.size());
        EXPECT_EQ(client().admin(queue).stats().totals.schedule_missed, absent.size());
        // The late ones within the grace are sent whatever the policy.
        for (std::int64_t t = f - 5 * kSecond; t <= f; t += kSecond)
            EXPECT_TRUE(sent.contains(t)) << t;
        // The missed ones are the oldest after the first, in one run.
        for (std::size_t i = 0; i < absent.size(); ++i) {
            EXPECT_EQ(absent[i], first[queue] + static_cast<std::int64_t>(i + 1) * kSecond);
        }
        switch (policy) {
            case CatchUp::kNone:
                EXPECT_GE(absent.size(), 3U);
                for (const std::int64_t t : sent) {
                    if (t != first[queue]) {
                        EXPECT_GE(t, f - 6 * kSecond) << t;
                    }
                }
                break;
            case CatchUp::kOne: {
                EXPECT_GE(absent.size(), 2U);
                // The newest missed occurrence, sent: older than the grace for any claim time.
                const std::int64_t kept =
                    first[queue] + static_cast<std::int64_t>(absent.size() + 1) * kSecond;
                EXPECT_TRUE(sent.contains(kept));
                EXPECT_LE(kept, f - 6 * kSecond);
                break;
            }
            case CatchUp::kAll:
                EXPECT_TRUE(absent.empty());
                EXPECT_GE(sent.size(), 11U);
                break;
        }
    }
}

TEST_F(SchedulerTest, OverlapSkipSkipsOccurrencesWhileThePreviousOneRuns) {
    auto s = client().schedules("q");
    s.add("job", every_second(CatchUp::kOne, Overlap::kSkip));
    Scheduler scheduler(client(), fast({"q"}));
    scheduler.start();
    Queue q = queue();
    // The first occurrence is held in flight; those falling due meanwhile are skipped.
    const Delivery running = fetch_one(q, std::chrono::seconds(60));
    ASSERT_TRUE(eventually([&] { return s.get("job")->skipped >= 2; }));
    EXPECT_TRUE(leases(q).fetch(10, std::chrono::seconds(30)).deliveries.empty());
    EXPECT_EQ(client().admin("q").stats().scheduled + client().admin("q").stats().ready, 0U);
    leases(q).ack(running.lease());
    // Once it is done, the next occurrence runs.
    const Delivery next = fetch_one(q);
    EXPECT_NE(next.id(), running.id());
    scheduler.stop();
    scheduler.wait();
    EXPECT_EQ(client().admin("q").stats().totals.schedule_skipped, s.get("job")->skipped);
}

TEST_F(SchedulerTest, ChangesUnderARunningSchedulerTakeEffect) {
    auto s = client().schedules("q");
    s.add("tick", every_second());
    Scheduler scheduler(client(), fast());
    scheduler.start();
    ASSERT_TRUE(eventually([&] { return s.get("tick")->runs >= 3; }));

    // A changed interval: the next occurrences follow it, on the schedule's anchor.
    ScheduleSpec slower = every_second();
    slower.every = std::chrono::seconds(2);
    ASSERT_EQ(s.upsert("tick", slower).status, PutStatus::kUpdated);
    const auto changed = s.get("tick");
    const std::int64_t anchor = ms(changed->anchor);
    const std::uint64_t runs_at_change = changed->runs;
    ASSERT_TRUE(eventually([&] { return s.get("tick")->runs >= runs_at_change + 2; }));
    for (const std::int64_t t : occurrences("q", "tick")) {
        if (t > ms(changed->updated)) {
            EXPECT_EQ((t - anchor) % (2 * kSecond), 0) << t;
        }
    }

    // Paused: its occurrence ahead is cancelled and the scheduler claims nothing.
    ASSERT_TRUE(s.pause("tick"));
    const std::uint64_t runs_at_pause = s.get("tick")->runs;
    const auto pending_at_pause = client().admin("q").stats().scheduled;
    const TimePoint paused_at = client().server_time();
    wait_for_server_time_after(paused_at + std::chrono::milliseconds(2500));
    EXPECT_EQ(s.get("tick")->runs, runs_at_pause);
    EXPECT_EQ(client().admin("q").stats().scheduled, pending_at_pause);
    for (const std::int64_t t : occurrences("q", "tick")) EXPECT_LE(t, ms(paused_at)) << t;

    // Resumed: occurrences come again.
    ASSERT_TRUE(s.resume("tick"));
    ASSERT_TRUE(eventually([&] { return s.get("tick")->runs >= runs_at_pause + 2; }));

    // Removed: nothing more is sent, and the scheduler drops the queue once it is unregistered.
    ASSERT_TRUE(s.remove("tick"));
    const std::size_t left = occurrences("q", "tick").size();
    ASSERT_TRUE(eventually([&] { return scheduler.stats().queues == 0; }));
    EXPECT_EQ(occurrences("q", "tick").size(), left);
    scheduler.stop();
    scheduler.wait();
}

TEST_F(SchedulerTest, ASchedulerFindsANewQueueAndReportsItsLag) {
    Scheduler scheduler(client(), fast());
    scheduler.start();
    auto s = client().schedules("found-later");
    s.add("tick", every_second());
    // Its second occurrence is claimed by the scheduler, which found the queue in the registry.
    ASSERT_TRUE(eventually([&] { return s.get("tick")->runs >= 2; }));
    const SchedulerStats stats = scheduler.stats();
    EXPECT_EQ(stats.queues, 1U);
    EXPECT_GE(stats.fired, 1U);
    EXPECT_TRUE(stats.lag.contains("found-later"));
    scheduler.stop();
    scheduler.wait();
}

// A stored spec this host cannot compute (here a zone no tzdata has, written behind the library's
// back) holds up that schedule only: the queue's other schedules are claimed on time.
TEST_F(SchedulerTest, AScheduleThisHostCannotComputeHoldsUpNoOther) {
    auto s = client().schedules("q");
    s.add("good", every_second());
    s.add("bad", every_second());
    const RawReply rewritten =
        server().command({"EVAL",
                          "local s = cmsgpack.unpack(redis.call('HGET', KEYS[1], ARGV[1])) "
                          "s.kind, s.expr, s.tz = 'cron', '* * * * *', 'Mars/Olympus_Mons' "
                          "redis.call('HSET', KEYS[1], ARGV[1], cmsgpack.pack(s)) "
                          "redis.call('ZADD', KEYS[2], 0, ARGV[1]) return 1",
                          "2", "dq:{q}:schedules", "dq:{q}:schedclaims", "bad"});
    ASSERT_EQ(rewritten.integer, 1) << rewritten.str;
    Scheduler scheduler(client(), fast({"q"}));
    scheduler.start();
    ASSERT_TRUE(eventually([&] { return s.get("good")->runs >= 3; }));
    scheduler.stop();
    scheduler.wait();
    EXPECT_GE(scheduler.stats().redis_errors, 1U);
    EXPECT_EQ(s.get("bad")->runs, 1U);  // the add's
}

}  // namespace
}  // namespace delayq::test
