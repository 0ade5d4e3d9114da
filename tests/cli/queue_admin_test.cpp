// delayq queue info|set|pause|resume|delete: a queue's settings and life.
#include <gtest/gtest.h>

#include <delayq/delayq.hpp>

#include "cli/cli_fixture.hpp"

namespace delayq::test {
namespace {

using namespace std::chrono_literals;
using QueueAdminTest = CliTest;

Json parsed(const CliResult& r) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(r.out);
}

TEST_F(QueueAdminTest, InfoShowsTheDefaultsAndTheCounts) {
    send("q", "later", {"--delay", "1h"});
    const CliResult human = cli({"queue", "info", "q"});
    EXPECT_EQ(human.exit_code, 0) << human.err;
    EXPECT_NE(human.out.find("max attempts    25"), std::string::npos) << human.out;
    EXPECT_NE(human.out.find("1 scheduled, 0 ready"), std::string::npos) << human.out;

    const Json j = parsed(cli({"queue", "info", "q", "--json"}));
    EXPECT_EQ(j["queue"], "q");
    EXPECT_EQ(j["paused"], false);
    EXPECT_EQ(j["max_attempts"], 25);
    EXPECT_EQ(j["backoff"]["initial_ms"], 1000);
    EXPECT_EQ(j["backoff"]["max_ms"], 3'600'000);
    EXPECT_EQ(j["backoff"]["multiplier"], 2.0);
    EXPECT_EQ(j["backoff"]["jitter"], 0.2);
    EXPECT_EQ(j["dead_max_count"], 100'000);
    EXPECT_EQ(j["dead_max_age_ms"], 30LL * 24 * 3600 * 1000);
    EXPECT_GE(j["layout"].get<int>(), 1);
    EXPECT_EQ(j["stats"]["scheduled"], 1);
    EXPECT_EQ(j["stats"]["queue"], "q");
}

TEST_F(QueueAdminTest, SetChangesWhatIsGivenAndKeepsTheRest) {
    CliResult r = cli({"queue", "set", "q", "--max-attempts", "3", "--backoff-initial", "5s",
                       "--dead-max-age", "7d"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("max attempts    3"), std::string::npos) << r.out;
    r = cli({"queue", "set", "q", "--backoff-max", "10m", "--backoff-multiplier", "3",
             "--backoff-jitter", "0", "--dead-max-count", "0"});
    ASSERT_EQ(r.exit_code, 0) << r.err;

    const Json j = parsed(cli({"queue", "info", "q", "--json"}));
    EXPECT_EQ(j["max_attempts"], 3);
    EXPECT_EQ(j["backoff"]["initial_ms"], 5000);  // kept by the second set
    EXPECT_EQ(j["backoff"]["max_ms"], 600'000);
    EXPECT_EQ(j["backoff"]["multiplier"], 3.0);
    EXPECT_EQ(j["backoff"]["jitter"], 0.0);
    EXPECT_EQ(j["dead_max_count"], 0);
    EXPECT_EQ(j["dead_max_age_ms"], 7LL * 24 * 3600 * 1000);

    // The library sees the queue's setting: a message sent without its own max attempts.
    Client client(redis_.url());
    EXPECT_EQ(client.admin("q").settings().max_attempts, 3);
}

TEST_F(QueueAdminTest, SetRefusesBadInputAndWritesNothing) {
    ASSERT_EQ(cli({"queue", "set", "q", "--max-attempts", "4"}).exit_code, 0);
    const std::string before = fingerprint();
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"queue", "set", "q"}, "nothing to set"},
        {{"queue", "set", "q", "--max-attempts", "0"}, "max-attempts"},
        {{"queue", "set", "q", "--max-attempts", "x"}, "max-attempts"},
        {{"queue", "set", "q", "--backoff-initial", "-1s"}, "must not be negative"},
        {{"queue", "set", "q", "--backoff-max", "soon"}, "invalid duration"},
        {{"queue", "set", "q", "--backoff-initial", "2h", "--backoff-max", "1h"}, "backoff"},
        {{"queue", "set", "q", "--backoff-multiplier", "0.5"}, "backoff"},
        {{"queue", "set", "q", "--backoff-jitter", "1.5"}, "backoff"},
        {{"queue", "set", "q", "--backoff-jitter", "much"}, "backoff-jitter"},
        {{"queue", "set", "q", "--dead-max-count", "-1"}, "dead-max-count"},
        {{"queue", "set", "q", "--dead-max-age", "1.5d"}, "invalid duration"},
        {{"queue", "set", "bad queue", "--max-attempts", "2"}, "queue name"},
        {{"queue", "info"}, "QUEUE"},
        {{"queue"}, "subcommand"},
    };
    for (const auto& [args, expected] : cases) {
        const CliResult r = cli(args);
        EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
        EXPECT_NE(r.err.find(expected), std::string::npos) << args.back() << ": " << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
        EXPECT_EQ(fingerprint(), before) << args.back();
    }
}

TEST_F(QueueAdminTest, PauseStopsLeasesAndResumeLetsThemGoOn) {
    send("q", "waiting");
    ASSERT_EQ(cli({"queue", "pause", "q"}).exit_code, 0);
    EXPECT_EQ(parsed(cli({"queue", "info", "q", "--json"}))["paused"], true);
    Client client(redis_.url());
    Leases leases = client.leases("q");
    EXPECT_TRUE(leases.fetch(10, 30s).deliveries.empty());

    ASSERT_EQ(cli({"queue", "resume", "q"}).exit_code, 0);
    EXPECT_EQ(parsed(cli({"queue", "info", "q", "--json"}))["paused"], false);
    EXPECT_EQ(leases.fetch(10, 30s).deliveries.size(), 1U);
}

TEST_F(QueueAdminTest, DeleteWithoutATerminalNeedsYes) {
    send("q", "keep me");
    const std::string before = fingerprint();
    const CliResult refused = cli({"queue", "delete", "q"});
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_NE(refused.err.find("--yes"), std::string::npos) << refused.err;
    EXPECT_EQ(fingerprint(), before);
    // The help states the status the command exits with (it once said 1).
    const CliResult help = cli({"queue", "delete", "--help"});
    EXPECT_NE(help.out.find("2 (bad usage, nothing deleted) without --yes when stdin is not a"),
              std::string::npos)
        << help.out;

    const CliResult r = cli({"queue", "delete", "q", "--yes"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "deleted queue q: 1 pending, 0 in flight and 0 dead messages\n");
    EXPECT_EQ(redis_.dbsize(), 0);
}

TEST_F(QueueAdminTest, DeleteIsRefusedWhileMessagesAreInFlightUnlessForced) {
    send("q", "held");
    send("q", "waiting", {"--delay", "1h"});
    Client client(redis_.url());
    ASSERT_EQ(client.leases("q").fetch(1, 1h).deliveries.size(), 1U);
    const std::string before = fingerprint();
    const CliResult refused = cli({"queue", "delete", "q", "--yes"});
    EXPECT_EQ(refused.exit_code, 1);
    EXPECT_NE(refused.err.find("1 messages in flight"), std::string::npos) << refused.err;
    EXPECT_EQ(fingerprint(), before);

    const CliResult r = cli({"queue", "delete", "q", "--yes", "--force"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "deleted queue q: 1 pending, 1 in flight and 0 dead messages\n");
    EXPECT_EQ(redis_.dbsize(), 0);
}

TEST_F(QueueAdminTest, DeleteOnATerminalAsksAndDoesOnlyWhatIsConfirmed) {
    send("q", "keep me");
    const std::string before = fingerprint();
    const CliResult no = cli({"queue", "delete", "q"}, {.input = "n\n", .terminal = true});
    EXPECT_EQ(no.exit_code, 1) << no.out;
    EXPECT_NE(no.out.find("Delete queue q: 0 scheduled, 1 ready"), std::string::npos) << no.out;
    EXPECT_NE(no.out.find("was not deleted"), std::string::npos) << no.out;
    EXPECT_EQ(fingerprint(), before);

    const CliResult yes = cli({"queue", "delete", "q"}, {.input = "y\n", .terminal = true});
    EXPECT_EQ(yes.exit_code, 0) << yes.out;
    EXPECT_NE(yes.out.find("deleted queue q: 1 pending"), std::string::npos) << yes.out;
    EXPECT_EQ(redis_.dbsize(), 0);
}

}  // namespace
}  // namespace delayq::test
