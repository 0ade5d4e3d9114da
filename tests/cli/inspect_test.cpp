// delayq stats, peek and queues: read-only views, for people and as JSON.
#include <gtest/gtest.h>

#include <delayq/delayq.hpp>

#include "cli/cli_fixture.hpp"

namespace delayq::test {
namespace {

using namespace std::chrono_literals;
using InspectTest = CliTest;

// One message in each state: scheduled, ready, in flight (leased here) and dead.
void fill_every_state(const CliTest& t, const RedisServer& redis) {
    delayq::Client client(redis.url());
    auto q = client.queue("q");
    auto leases = client.leases("q");
    q.send("dies", {.id = "dead-1", .max_attempts = 1});
    auto f = leases.fetch(1, 1h);
    ASSERT_EQ(f.deliveries.size(), 1U);
    leases.reject(f.deliveries[0].lease(), delayq::Reject{.error = "bad order"});
    q.send("held", {.id = "flying"});
    ASSERT_EQ(leases.fetch(1, 1h).deliveries.size(), 1U);
    q.send("now", {.id = "ready-1"});
    q.send("later", {.delay = 1h, .id = "sched-2"});
    q.send("soon", {.delay = 30min, .id = "sched-1"});
    (void)t;
}

TEST_F(InspectTest, TimelineCountsWhatFallsDueByBucket) {
    send("q", "now");
    send("q", "soon", {"--delay", "90s"});
    send("q", "later", {"--delay", "5h"});
    CliResult r = cli({"queue", "timeline", "q", "--bucket", "1m", "--buckets", "3", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Json t = Json::parse(r.out);
    EXPECT_EQ(t["queue"], "q");
    EXPECT_EQ(t["bucket_ms"], 60000);
    EXPECT_EQ(t["ready"], 1);
    EXPECT_EQ(t["later"], 1);
    ASSERT_EQ(t["buckets"].size(), 3u);
    EXPECT_EQ(t["buckets"][1]["count"], 1);
    r = cli({"queue", "timeline", "q", "--bucket", "1m", "--buckets", "3"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("ready"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("<= 2m "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(std::string(40, '#')), std::string::npos) << r.out;
    for (const std::vector<std::string>& bad :
         {std::vector<std::string>{"queue", "timeline", "q", "--bucket", "soon"},
          {"queue", "timeline", "q", "--buckets", "0"},
          {"queue", "timeline", "q", "--bucket", "0s"}}) {
        EXPECT_EQ(cli(bad).exit_code, 2) << bad[3] << " " << bad[4];
    }
}

TEST_F(InspectTest, StatsJsonCountsEveryState) {
    fill_every_state(*this, redis_);
    const Json s = stats("q");
    EXPECT_EQ(s["queue"], "q");
    EXPECT_EQ(s["scheduled"], 2);
    EXPECT_EQ(s["ready"], 1);
    EXPECT_EQ(s["in_flight"], 1);
    EXPECT_EQ(s["dead"], 1);
    EXPECT_EQ(s["total"], 5);
    EXPECT_EQ(s["totals"]["sent"], 5);
    EXPECT_EQ(s["totals"]["dead_lettered"], 1);
    EXPECT_GT(s["next_due_ms"].get<long long>(), s["now_ms"].get<long long>());
    EXPECT_LE(s["oldest_due_ms"].get<long long>(), s["now_ms"].get<long long>());
    EXPECT_GE(s["oldest_overdue_ms"].get<long long>(), 0);
}

TEST_F(InspectTest, StatsForPeopleShowsCountsTotalsAndNextDue) {
    fill_every_state(*this, redis_);
    const CliResult r = cli({"stats", "q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("scheduled  2"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("ready      1"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("in_flight  1"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("dead       1"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("next due in"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("oldest overdue by"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("sent 5"), std::string::npos) << r.out;
}

TEST_F(InspectTest, StatsWithoutAQueueCoversEveryQueue) {
    send("alpha", "a");
    send("beta", "b", {"--delay", "1h"});
    const CliResult r = cli({"stats", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Json all = Json::parse(r.out);
    ASSERT_EQ(all.size(), 2U);
    EXPECT_EQ(all[0]["queue"], "alpha");
    EXPECT_EQ(all[0]["ready"], 1);
    EXPECT_EQ(all[1]["queue"], "beta");
    EXPECT_EQ(all[1]["scheduled"], 1);
    const CliResult people = cli({"stats"});
    EXPECT_NE(people.out.find("alpha"), std::string::npos);
    EXPECT_NE(people.out.find("beta"), std::string::npos);
}

TEST_F(InspectTest, QueuesListsEachQueueWithItsCounts) {
    const CliResult none = cli({"queues"});
    EXPECT_EQ(none.exit_code, 0);
    EXPECT_EQ(none.out, "no queues\n");
    send("alpha", "a");
    send("alpha", "b");
    send("beta", "c", {"--delay", "1h"});
    const CliResult r = cli({"queues"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("QUEUE"), std::string::npos);
    EXPECT_NE(r.out.find("alpha  0          2"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("beta   1          0"), std::string::npos) << r.out;
    const Json j = Json::parse(cli({"queues", "--json"}).out);
    ASSERT_EQ(j.size(), 2U);
    EXPECT_EQ(j[0]["ready"], 2);
    EXPECT_EQ(j[1]["scheduled"], 1);
}

TEST_F(InspectTest, PeekShowsEachStateInOrderWithAliases) {
    fill_every_state(*this, redis_);
    const std::string before = fingerprint();
    auto ids = [&](const std::string& state) {
        std::vector<std::string> out;
        for (const auto& j : peek("q", state)) out.push_back(j["id"]);
        return out;
    };
    EXPECT_EQ(ids("scheduled"), (std::vector<std::string>{"sched-1", "sched-2"}));
    EXPECT_EQ(ids("pending"), (std::vector<std::string>{"sched-1", "sched-2"}));
    EXPECT_EQ(ids("ready"), (std::vector<std::string>{"ready-1"}));
    EXPECT_EQ(ids("in_flight"), (std::vector<std::string>{"flying"}));
    EXPECT_EQ(ids("inflight"), (std::vector<std::string>{"flying"}));
    EXPECT_EQ(ids("dead"), (std::vector<std::string>{"dead-1"}));
    const auto dead = peek("q", "dead");
    EXPECT_EQ(dead[0]["last_error"], "bad order");
    EXPECT_EQ(dead[0]["dead_reason"], "rejected");
    EXPECT_EQ(peek("q", "in_flight")[0]["state"], "in_flight");
    EXPECT_FALSE(peek("q", "in_flight")[0]["lease_deadline_ms"].is_null());
    EXPECT_EQ(fingerprint(), before);  // looking changes nothing
}

TEST_F(InspectTest, PeekDefaultsToWaitingMessagesAndHonoursTheLimit) {
    fill_every_state(*this, redis_);
    const CliResult r = cli({"peek", "q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto ready_at = r.out.find("ready-1");
    const auto first_at = r.out.find("sched-1");
    const auto second_at = r.out.find("sched-2");
    ASSERT_NE(ready_at, std::string::npos) << r.out;
    EXPECT_LT(ready_at, first_at);
    EXPECT_LT(first_at, second_at);
    EXPECT_EQ(r.out.find("flying"), std::string::npos);
    const CliResult limited = cli({"peek", "q", "--limit", "2", "--json"});
    ASSERT_EQ(limited.exit_code, 0);
    const auto lines = json_lines(limited.out);
    ASSERT_EQ(lines.size(), 2U);
    EXPECT_EQ(lines[0]["id"], "ready-1");
    EXPECT_EQ(lines[1]["id"], "sched-1");
    EXPECT_EQ(cli({"peek", "empty"}).out, "no messages\n");
}

TEST_F(InspectTest, PeekPagesPastAThousand) {
    std::string input;
    for (int i = 0; i < 1200; ++i) input += "{\"payload\":\"x\",\"delay\":\"1h\"}\n";
    CliOptions o;
    o.input = input;
    ASSERT_EQ(cli({"send", "q", "--file", "-"}, o).exit_code, 0);
    const CliResult r = cli({"peek", "q", "--limit", "1100", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(json_lines(r.out).size(), 1100U);
}

}  // namespace
}  // namespace delayq::test
