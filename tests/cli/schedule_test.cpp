// delayq schedule add|set|get|list|pause|resume|remove|trigger|next|run: recurring schedules.
#include <gtest/gtest.h>
#include <signal.h>

#include <ctime>
#include <delayq/delayq.hpp>
#include <delayq/limits.hpp>

#include "cli/cli_fixture.hpp"

namespace delayq::test {
namespace {

using ScheduleTest = CliTest;

Json json_of(const CliResult& r) {
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(r.out);
}

// Unix ms of a UTC calendar time, by the C library rather than delayq's own time code.
long long utc_ms(int year, int month, int day, int hour, int minute) {
    std::tm tm{};
    tm.tm_year = year - 1900;
    tm.tm_mon = month - 1;
    tm.tm_mday = day;
    tm.tm_hour = hour;
    tm.tm_min = minute;
    return static_cast<long long>(::timegm(&tm)) * 1000;
}

std::string occurrence_id(const std::string& name, const Json& ms) {
    return "schedule:" + name + ":" + std::to_string(ms.get<long long>());
}

std::size_t messages_in(const QueueStats& s) { return s.scheduled + s.ready + s.in_flight; }

TEST_F(ScheduleTest, AddSetGetListPauseResumeTriggerRemove) {
    QueueAdmin admin = Client(redis_.url()).admin("q");

    CliResult r = cli({"schedule", "add", "q", "hourly", "--every", "1h", "--payload", "tick"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.out.starts_with("created schedule hourly in queue q: next ")) << r.out;
    // A name the queue has already: nothing changes, and the message says why.
    r = cli({"schedule", "add", "q", "hourly", "--every", "2h", "--payload", "other"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("exists"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");

    r = cli({"schedule", "set", "q", "hourly", "--every", "1h", "--payload", "tick"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.out.starts_with("unchanged schedule hourly")) << r.out;
    // The payload from stdin, and the outcome as JSON.
    const Json put = json_of(
        cli({"schedule", "set", "q", "hourly", "--every", "2h", "--json"}, {.input = "tock"}));
    EXPECT_EQ(put["status"], "updated");
    ASSERT_TRUE(put["next_ms"].is_number_integer()) << put.dump();

    Json got = json_of(cli({"schedule", "get", "q", "hourly", "--json"}));
    EXPECT_EQ(got["queue"], "q");
    EXPECT_EQ(got["name"], "hourly");
    EXPECT_EQ(got["spec"]["every_ms"], 7'200'000);
    EXPECT_EQ(got["spec"]["payload"], "tock");
    EXPECT_EQ(got["paused"], false);
    EXPECT_EQ(got["next_ms"], put["next_ms"]);
    for (const char* field : {"anchor_ms", "created_ms", "updated_ms", "last_fired_ms", "last_id",
                              "last_outcome", "runs", "missed", "skipped"}) {
        EXPECT_TRUE(got.contains(field)) << field << " in " << got.dump();
    }
    // The spec's first occurrence is in the queue under its own id, carrying the payload.
    const std::string sent_ahead = occurrence_id("hourly", got["next_ms"]);
    const std::optional<MessageInfo> m = admin.get(sent_ahead);
    ASSERT_TRUE(m) << sent_ahead;
    EXPECT_EQ(m->payload, "tock");
    EXPECT_EQ(m->due.time_since_epoch().count(), got["next_ms"].get<long long>());

    r = cli({"schedule", "get", "q", "hourly"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("every 2h"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("active"), std::string::npos) << r.out;

    // Another queue's cron schedule: the list without a queue shows both.
    ASSERT_EQ(
        cli({"schedule", "add", "r", "nightly", "--cron", "30 2 * * *", "--tz", "Europe/Berlin"})
            .exit_code,
        0);
    const Json all = json_of(cli({"schedule", "list", "--json"}));
    ASSERT_EQ(all["schedules"].size(), 2U) << all.dump();
    EXPECT_EQ(all["schedules"][0]["queue"], "q");
    EXPECT_EQ(all["schedules"][0]["name"], "hourly");
    EXPECT_EQ(all["schedules"][1]["queue"], "r");
    EXPECT_EQ(all["schedules"][1]["spec"]["cron"], "30 2 * * *");
    EXPECT_EQ(all["schedules"][1]["spec"]["tz"], "Europe/Berlin");
    r = cli({"schedule", "list", "r"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("nightly"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("cron \"30 2 * * *\" Europe/Berlin"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("hourly"), std::string::npos) << r.out;

    // Pausing cancels the occurrence sent ahead; resuming sends the next one.
    ASSERT_EQ(cli({"schedule", "pause", "q", "hourly"}).exit_code, 0);
    got = json_of(cli({"schedule", "get", "q", "hourly", "--json"}));
    EXPECT_EQ(got["paused"], true);
    EXPECT_TRUE(got["next_ms"].is_null()) << got.dump();
    EXPECT_FALSE(admin.get(sent_ahead));
    ASSERT_EQ(cli({"schedule", "resume", "q", "hourly"}).exit_code, 0);
    got = json_of(cli({"schedule", "get", "q", "hourly", "--json"}));
    EXPECT_EQ(got["paused"], false);
    ASSERT_TRUE(got["next_ms"].is_number_integer()) << got.dump();
    EXPECT_TRUE(admin.get(occurrence_id("hourly", got["next_ms"])));

    // A triggered occurrence is due now, under the id printed.
    r = cli({"schedule", "trigger", "q", "hourly"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string triggered = r.out.substr(0, r.out.find('\n'));
    EXPECT_TRUE(triggered.starts_with("schedule:hourly:")) << r.out;
    const Json message = json_of(cli({"get", "q", triggered, "--json"}));
    EXPECT_EQ(message["payload"], "tock");
    EXPECT_EQ(message["state"], "ready");

    ASSERT_EQ(cli({"schedule", "remove", "q", "hourly"}).exit_code, 0);
    // Gone: every command that names it exits 1 and says so.
    for (const std::string command : {"get", "pause", "trigger", "remove"}) {
        r = cli({"schedule", command, "q", "hourly"});
        EXPECT_EQ(r.exit_code, 1) << command;
        EXPECT_NE(r.err.find("no schedule hourly in queue q"), std::string::npos) << r.err;
    }
    EXPECT_TRUE(admin.get(triggered));  // what it sent stays
    r = cli({"schedule", "list", "q"});
    EXPECT_EQ(r.out, "no schedules\n");
}

TEST_F(ScheduleTest, NextShowsADstDayInUtcAndInTheZone) {
    // Berlin leaves 02:00-03:00 out on 2024-03-31: 02:30 that day is 03:00 CEST, 01:00 UTC.
    const std::vector<long long> expected = {utc_ms(2024, 3, 31, 1, 0), utc_ms(2024, 4, 1, 0, 30)};
    const std::vector<std::string> spec = {"schedule", "next",
                                           "--cron",   "30 2 * * *",
                                           "--tz",     "Europe/Berlin",
                                           "--from",   "2024-03-30T12:00:00Z",
                                           "--count",  "2"};
    // A spec on the command line needs no Redis: none listens at this URL.
    const CliOptions nowhere{
        .env = {"DELAYQ_REDIS_URL=redis://127.0.0.1:" + std::to_string(free_port())}};
    std::vector<std::string> args = spec;
    args.push_back("--json");
    const Json j = json_of(cli(args, nowhere));
    ASSERT_EQ(j["occurrences"].size(), 2U) << j.dump();
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(j["occurrences"][i]["ms"], expected[i]) << j.dump();
    }
    EXPECT_EQ(j["occurrences"][0]["time"], "2024-03-31T01:00:00.000Z");
    const CliResult people = cli(spec, nowhere);
    ASSERT_EQ(people.exit_code, 0) << people.err;
    EXPECT_EQ(people.out,
              "2024-03-31T01:00:00.000Z  2024-03-31 03:00:00 CEST (+02:00)\n"
              "2024-04-01T00:30:00.000Z  2024-04-01 02:30:00 CEST (+02:00)\n");

    // A stored schedule gives the same instants.
    ASSERT_EQ(
        cli({"schedule", "add", "q", "nightly", "--cron", "30 2 * * *", "--tz", "Europe/Berlin"})
            .exit_code,
        0);
    const Json stored = json_of(cli({"schedule", "next", "q", "nightly", "--from",
                                     "2024-03-30T12:00:00Z", "--count", "2", "--json"}));
    EXPECT_EQ(stored, j);
    const CliResult missing = cli({"schedule", "next", "q", "weekly"});
    EXPECT_EQ(missing.exit_code, 1);
    EXPECT_NE(missing.err.find("no schedule weekly in queue q"), std::string::npos);
}

struct BadScheduleInput {
    std::vector<std::string> args;
    std::string expected;  // in the message on stderr
    std::string input{};
};

TEST_F(ScheduleTest, BadInputExitsTwoNamingTheFieldAndWritesNothing) {
    // One schedule already there, so that an unchanged fingerprint means more than "empty".
    ASSERT_EQ(cli({"schedule", "add", "q", "kept", "--every", "1h"}).exit_code, 0);
    const std::string before = fingerprint();
    const std::string payload_over(kDefaultMaxPayloadBytes + 1, 'p');
    const std::vector<BadScheduleInput> cases = {
        {{"schedule", "add", "q", "a", "--cron", "61 * * * *"}, "cron"},
        {{"schedule", "add", "q", "a", "--cron", "0 * * * *", "--tz", "Europe/Nowhere"}, "tz"},
        {{"schedule", "set", "q", "a", "--every", "500ms"}, "every"},
        {{"schedule", "add", "q", "a", "--every", "0"}, "--every"},
        {{"schedule", "add", "q", "a", "--every", "1h", "--start", "2030-01-02T00:00:00Z", "--end",
          "2030-01-01T00:00:00Z"},
         "end"},
        {{"schedule", "add", "q", std::string(kMaxScheduleNameBytes + 1, 'n'), "--every", "1h"},
         "name"},
        {{"schedule", "add", "q", "a", "--every", "1h"}, "payload", payload_over},
        {{"schedule", "add", "q", "a", "--every", "1h", "--cron", "0 * * * *"}, "excludes"},
        {{"schedule", "add", "q", "a"}, "--cron"},
        {{"schedule", "add", "q", "a", "--every", "1h", "--tz", "Europe/Berlin"}, "--tz"},
        {{"schedule", "add", "q", "a", "--every", "1h", "--overlap", "sometimes"}, "overlap"},
        {{"schedule", "add", "bad queue", "a", "--every", "1h"}, "queue name"},
        {{"schedule", "pause", "q", "bad name"}, "name"},
        {{"schedule", "next", "q"}, "QUEUE NAME"},
        {{"schedule", "next", "--cron", "0 * * * *", "--count", "1001"}, "count"},
        {{"schedule", "run", "bad queue"}, "queue name"},
    };
    for (const auto& c : cases) {
        std::string shown;
        for (const auto& a : c.args) shown += a.substr(0, 40) + " ";
        const CliResult r = cli(c.args, {.input = c.input});
        EXPECT_EQ(r.exit_code, 2) << shown << "\nstdout: " << r.out << "\nstderr: " << r.err;
        EXPECT_NE(r.err.find(c.expected), std::string::npos) << shown << "\nstderr: " << r.err;
        EXPECT_TRUE(r.out.empty()) << shown << "\nstdout: " << r.out;
        EXPECT_EQ(fingerprint(), before) << shown;
    }
}

TEST_F(ScheduleTest, RunSendsTheOccurrencesUntilSigterm) {
    ASSERT_EQ(cli({"schedule", "add", "q", "tick", "--every", "1s", "--payload", "t"}).exit_code,
              0);
    QueueAdmin admin = Client(redis_.url()).admin("q");
    const std::size_t sent_by_add = messages_in(admin.stats());
    // Without a queue named, it finds the queue in the registry of queues with schedules.
    auto run = start({"schedule", "run"});
    EXPECT_TRUE(eventually([&] { return messages_in(admin.stats()) >= sent_by_add + 2; },
                           std::chrono::seconds(30)));
    run->signal(SIGTERM);
    const CliResult r = run->wait();
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("sent "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("stopped"), std::string::npos) << r.err;
    const Json got = json_of(cli({"schedule", "get", "q", "tick", "--json"}));
    EXPECT_GE(got["runs"].get<long long>(), 2) << got.dump();
}

}  // namespace
}  // namespace delayq::test
