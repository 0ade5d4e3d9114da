// delayq cancel, reschedule and dead list|requeue|purge.
#include <gtest/gtest.h>

#include <delayq/delayq.hpp>

#include "cli/cli_fixture.hpp"

namespace delayq::test {
namespace {

using namespace std::chrono_literals;
using ManageTest = CliTest;

TEST_F(ManageTest, CancelDeletesAWaitingMessage) {
    send("q", "x", {"--id", "c1", "--delay", "1h"});
    const CliResult r = cli({"cancel", "q", "c1"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "cancelled c1\n");
    EXPECT_EQ(redis_.hlen(queue_key("q", "msg")), 0);
    EXPECT_EQ(stats("q")["totals"]["cancelled"], 1);
}

TEST_F(ManageTest, CancelOfAMissingInFlightOrDeadMessageExitsOne) {
    delayq::Client client(redis_.url());
    auto q = client.queue("q");
    auto leases = client.leases("q");
    q.send("x", {.id = "flying"});
    ASSERT_EQ(leases.fetch(1, 1h).deliveries.size(), 1U);
    q.send("y", {.id = "dead", .max_attempts = 1});
    leases.reject(leases.fetch(1, 1h).deliveries.at(0).lease(), delayq::Reject{});
    const std::string before = fingerprint();
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"nobody", "no message nobody"}, {"flying", "in flight"}, {"dead", "dead letter"}};
    for (const auto& [id, expected] : cases) {
        const CliResult r = cli({"cancel", "q", id});
        EXPECT_EQ(r.exit_code, 1) << id;
        EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
        EXPECT_EQ(count_lines(r.err), 1U) << r.err;
    }
    EXPECT_EQ(fingerprint(), before);
}

TEST_F(ManageTest, RescheduleMovesTheDueTime) {
    send("q", "x", {"--id", "r1", "--delay", "1h"});
    const long long before = redis_.time_ms();
    CliResult r = cli({"reschedule", "q", "r1", "--delay", "2h"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("rescheduled r1: due "), std::string::npos) << r.out;
    const long long due = peek("q", "scheduled").at(0)["due_ms"];
    EXPECT_GE(due, before + 7'200'000);
    EXPECT_LE(due, redis_.time_ms() + 7'200'000);

    r = cli({"reschedule", "q", "r1", "--at", "2030-01-02T03:04:05Z"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "rescheduled r1: due 2030-01-02T03:04:05.000Z\n");
    EXPECT_EQ(peek("q", "scheduled").at(0)["due_ms"], 1893553445000LL);

    r = cli({"reschedule", "q", "r1", "--delay", "0"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(peek("q", "ready").size(), 1U);

    r = cli({"reschedule", "q", "ghost", "--delay", "1s"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("no message ghost"), std::string::npos) << r.err;
}

class DeadTest : public CliTest {
  protected:
    // Dead letters d1..dn, made the way they are in production: a failing command.
    void make_dead(int n) {
        for (int i = 1; i <= n; ++i) {
            send("q", "payload " + std::to_string(i),
                 {"--id", "d" + std::to_string(i), "--max-attempts", "1"});
        }
        const CliResult r = cli({"consume", "q", "--max", std::to_string(n), "--", "sh", "-c",
                                 "echo \"cannot handle $DELAYQ_ID\" >&2; exit 9"});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        ASSERT_EQ(redis_.zcard(queue_key("q", "dead")), n);
    }
};

TEST_F(DeadTest, ListShowsReasonAndLastError) {
    make_dead(2);
    const CliResult r = cli({"dead", "list", "q"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("d1"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("attempts exhausted"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("cannot handle d2"), std::string::npos) << r.out;
    const auto lines = json_lines(cli({"dead", "list", "q", "--json"}).out);
    ASSERT_EQ(lines.size(), 2U);
    EXPECT_EQ(lines[0]["state"], "dead");
    EXPECT_EQ(lines[0]["attempts"], 1);
    EXPECT_EQ(json_lines(cli({"dead", "list", "q", "--json", "--limit", "1"}).out).size(), 1U);
}

TEST_F(DeadTest, RequeueByIdAndAll) {
    make_dead(3);
    CliResult r = cli({"dead", "requeue", "q", "d2"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "requeued 1 of 1\n");
    EXPECT_EQ(redis_.zcard(queue_key("q", "dead")), 2);
    const auto ready = peek("q", "ready");
    ASSERT_EQ(ready.size(), 1U);
    EXPECT_EQ(ready[0]["id"], "d2");
    EXPECT_EQ(ready[0]["attempts"], 0);

    r = cli({"dead", "requeue", "q", "d1", "d2"});  // d2 is no longer dead
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out, "requeued 1 of 2\n");
    EXPECT_NE(r.err.find("not dead letters"), std::string::npos) << r.err;

    r = cli({"dead", "requeue", "q", "--all"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "requeued 1 dead letter\n");
    EXPECT_EQ(redis_.zcard(queue_key("q", "dead")), 0);
    EXPECT_EQ(peek("q", "ready").size(), 3U);
}

// An id named twice is one dead letter: counted once, and no "not dead letters" failure.
TEST_F(DeadTest, RepeatedIdsCountOnce) {
    make_dead(2);
    CliResult r = cli({"dead", "requeue", "q", "d1", "d1"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "requeued 1 of 1\n");
    r = cli({"dead", "purge", "q", "d2", "d2", "d2"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "purged 1 of 1\n");
    EXPECT_EQ(redis_.zcard(queue_key("q", "dead")), 0);
    EXPECT_EQ(stats("q")["totals"]["requeued"], 1);
    EXPECT_EQ(stats("q")["totals"]["purged"], 1);
}

TEST_F(DeadTest, PurgeByIdAndAll) {
    make_dead(3);
    CliResult r = cli({"dead", "purge", "q", "d1"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "purged 1 of 1\n");
    EXPECT_EQ(redis_.hlen(queue_key("q", "msg")), 2);
    r = cli({"dead", "purge", "q", "--all"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "purged 2 dead letters\n");
    EXPECT_EQ(redis_.hlen(queue_key("q", "msg")), 0);
    EXPECT_EQ(redis_.zcard(queue_key("q", "dead")), 0);
    EXPECT_EQ(stats("q")["totals"]["purged"], 3);
}

}  // namespace
}  // namespace delayq::test
