// Recurring schedules over real HTTP: the routes and their answers, the `schedule` scope, bad
// input refused before Redis, the service's own Scheduler, and their metrics.
#include <gtest/gtest.h>

#include <delayq/delayq.hpp>
#include <delayq/time.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "promtool.hpp"
#include "server/support/service_fixture.hpp"
#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using nlohmann::json;

constexpr const char* kSchedules = "/v1/queues/q/schedules";

const json kNightly = {{"cron", "0 3 * * *"}, {"tz", "Europe/Berlin"}, {"payload", "report"}};

class HttpSchedulesTest : public ServiceTest {
  protected:
    void SetUp() override { start(); }
    Client client() { return Client(redis().url()); }

    HttpResult put(const std::string& name, const json& spec, const std::string& token = {}) {
        return http().request({.method = "PUT",
                               .target = std::string(kSchedules) + "/" + name,
                               .body = spec.dump(),
                               .token = token});
    }
    HttpResult add(const std::string& name, json spec, const std::string& token = {}) {
        spec["name"] = name;
        return http().post(kSchedules, spec, token);
    }
    // The actions take no body (a POST sends its media type all the same).
    HttpResult act(const std::string& name, const std::string& action,
                   const std::string& token = {}) {
        return http().request({.method = "POST",
                               .target = std::string(kSchedules) + "/" + name + "/" + action,
                               .token = token});
    }
    json totals() { return http().get("/v1/queues/q").json()["totals"]; }
};

TEST_F(HttpSchedulesTest, AddIsCreatedOnceThenAConflict) {
    const HttpResult created = add("nightly", kNightly);
    ASSERT_EQ(created.status, 201u) << created.body;
    EXPECT_EQ(created.json()["status"], "created");
    EXPECT_TRUE(created.json()["next_ms"].is_number()) << created.body;
    const auto before = key_dump();
    const HttpResult again = add("nightly", {{"every", "1h"}});
    EXPECT_EQ(again.status, 409u) << again.body;
    EXPECT_EQ(again.code(), "conflict");
    EXPECT_EQ(key_dump(), before);
}

TEST_F(HttpSchedulesTest, PutCreatesUpdatesOrLeavesUnchangedAndGetShowsThem) {
    const HttpResult created = put("nightly", kNightly);
    ASSERT_EQ(created.status, 201u) << created.body;
    EXPECT_EQ(created.json()["status"], "created");
    const HttpResult unchanged = put("nightly", kNightly);
    ASSERT_EQ(unchanged.status, 200u) << unchanged.body;
    EXPECT_EQ(unchanged.json()["status"], "unchanged");
    json changed = kNightly;
    changed["payload"] = "report v2";
    const HttpResult updated = put("nightly", changed);
    ASSERT_EQ(updated.status, 200u) << updated.body;
    EXPECT_EQ(updated.json()["status"], "updated");

    const HttpResult one = http().get(std::string(kSchedules) + "/nightly");
    ASSERT_EQ(one.status, 200u) << one.body;
    EXPECT_EQ(one.json()["queue"], "q");
    EXPECT_EQ(one.json()["name"], "nightly");
    EXPECT_EQ(one.json()["spec"]["cron"], "0 3 * * *");
    EXPECT_EQ(one.json()["spec"]["tz"], "Europe/Berlin");
    EXPECT_EQ(one.json()["spec"]["payload"], "report v2");
    EXPECT_EQ(one.json()["paused"], false);

    ASSERT_EQ(add("hourly", {{"every", "1h"}}).status, 201u);
    const HttpResult list = http().get(std::string(kSchedules) + "?limit=10");
    ASSERT_EQ(list.status, 200u) << list.body;
    std::set<std::string> names;
    const json page = list.json();
    for (const json& s : page["schedules"]) names.insert(s["name"].get<std::string>());
    EXPECT_EQ(names, (std::set<std::string>{"hourly", "nightly"}));
    EXPECT_TRUE(list.json()["next_cursor"].is_null()) << list.body;
    EXPECT_EQ(http().get(std::string(kSchedules) + "/weekly").status, 404u);
}

TEST_F(HttpSchedulesTest, PauseResumeTriggerAndRemove) {
    ASSERT_EQ(put("nightly", kNightly).status, 201u);
    const HttpResult paused = act("nightly", "pause");
    ASSERT_EQ(paused.status, 200u) << paused.body;
    EXPECT_EQ(paused.json()["paused"], true);
    EXPECT_TRUE(paused.json()["next_ms"].is_null()) << paused.body;
    const HttpResult resumed = act("nightly", "resume");
    ASSERT_EQ(resumed.status, 200u) << resumed.body;
    EXPECT_EQ(resumed.json()["paused"], false);
    EXPECT_TRUE(resumed.json()["next_ms"].is_number()) << resumed.body;

    const HttpResult triggered = act("nightly", "trigger");
    ASSERT_EQ(triggered.status, 201u) << triggered.body;
    const std::string id = triggered.json()["id"];
    EXPECT_TRUE(id.starts_with("schedule:nightly:")) << id;
    const HttpResult message = http().get("/v1/queues/q/messages/" + id);
    ASSERT_EQ(message.status, 200u) << message.body;
    EXPECT_EQ(message.json()["payload"], "report");

    const HttpResult removed = http().del(std::string(kSchedules) + "/nightly");
    ASSERT_EQ(removed.status, 200u) << removed.body;
    EXPECT_EQ(removed.json()["status"], "removed");
    EXPECT_EQ(http().del(std::string(kSchedules) + "/nightly").status, 404u);
    EXPECT_EQ(http().get(std::string(kSchedules) + "/nightly").status, 404u);
    for (const char* action : {"pause", "resume", "trigger"}) {
        EXPECT_EQ(act("nightly", action).status, 404u) << action;
    }
}

// 02:30 does not exist in Berlin on 2024-03-31 (the clocks go from 02:00 to 03:00): that day's
// occurrence is at 03:00 CEST, the next day's at 02:30 CEST.
TEST_F(HttpSchedulesTest, NextFollowsTheZonesDaylightSavingTime) {
    ASSERT_EQ(put("dst", {{"cron", "30 2 * * *"}, {"tz", "Europe/Berlin"}}).status, 201u);
    const HttpResult next =
        http().get(std::string(kSchedules) + "/dst/next?count=2&from=2024-03-30T12:00:00Z");
    ASSERT_EQ(next.status, 200u) << next.body;
    const json occurrences = next.json()["occurrences"];
    ASSERT_EQ(occurrences.size(), 2u) << next.body;
    EXPECT_EQ(occurrences[0]["ms"], ms(parse_time("2024-03-31T01:00:00Z")));
    EXPECT_EQ(occurrences[0]["time"], "2024-03-31T01:00:00.000Z");
    EXPECT_EQ(occurrences[1]["ms"], ms(parse_time("2024-04-01T00:30:00Z")));
    EXPECT_EQ(http().get(std::string(kSchedules) + "/none/next").status, 404u);
}

TEST_F(HttpSchedulesTest, ReadCannotChangeAndScheduleCannotPurgeOrDelete) {
    stop_service();
    const std::string reader = add_token("dash", "read", "*");
    const std::string deployer = add_token("deploy", "schedule", "q");
    const std::string admin = add_token("ops", "admin", "*");
    start([this](server::service::ServiceConfig& c) { c.auth_file = auth_file(); });

    const auto before = key_dump();
    EXPECT_EQ(add("nightly", kNightly, reader).status, 403u);
    EXPECT_EQ(put("nightly", kNightly, reader).status, 403u);
    EXPECT_EQ(key_dump(), before);

    EXPECT_EQ(add("nightly", kNightly, deployer).status, 201u);
    EXPECT_EQ(put("hourly", {{"every", "1h"}}, deployer).status, 201u);
    EXPECT_EQ(act("nightly", "trigger", deployer).status, 201u);
    EXPECT_EQ(act("nightly", "pause", deployer).status, 200u);
    EXPECT_EQ(http().post("/v1/queues/q/dead/purge", {{"all", true}}, deployer).status, 403u);
    EXPECT_EQ(http().del("/v1/queues/q?force=true", deployer).status, 403u);
    EXPECT_EQ(put("nightly", kNightly, "").status, 401u);
    EXPECT_EQ(http()
                  .request({.method = "PUT",
                            .target = "/v1/queues/other/schedules/nightly",
                            .body = kNightly.dump(),
                            .token = deployer})
                  .status,
              403u)
        << "the token covers q only";

    EXPECT_EQ(http().get(kSchedules, reader).status, 200u);
    EXPECT_EQ(put("hourly", {{"every", "2h"}}, admin).status, 200u) << "admin implies schedule";
    EXPECT_EQ(http().del(std::string(kSchedules) + "/hourly", deployer).status, 200u);
}

TEST_F(HttpSchedulesTest, BadInputIs400NamingTheFieldAndWritesNothing) {
    const std::string long_name(kMaxScheduleNameBytes + 1, 'n');
    struct Case {
        std::string method;
        std::string target;
        std::optional<json> body;
        std::string field;
    };
    const std::string one = std::string(kSchedules) + "/a";
    const std::vector<Case> cases = {
        {"POST", kSchedules, json{{"name", "a"}, {"cron", "61 * * * *"}}, "cron"},
        {"PUT", one, json{{"cron", "0 3 * * *"}, {"tz", "Mars/Olympus_Mons"}}, "tz"},
        {"PUT", one, json{{"every", "500ms"}}, "every"},
        {"PUT", one,
         json{{"every", "1h"}, {"start", "2030-01-02T00:00:00Z"}, {"end", "2030-01-01T00:00:00Z"}},
         "end"},
        {"POST", kSchedules, json{{"name", "a"}, {"every", "1h"}, {"colour", "red"}}, "colour"},
        {"POST", kSchedules, json{{"name", long_name}, {"every", "1h"}}, "name"},
        {"PUT", std::string(kSchedules) + "/" + long_name, json{{"every", "1h"}}, "name"},
        {"POST", kSchedules, json{{"every", "1h"}}, "name"},
        {"GET", one + "/next?count=0", std::nullopt, "count"},
        {"GET", one + "/next?from=yesterday", std::nullopt, "from"},
        {"GET", std::string(kSchedules) + "?limit=0", std::nullopt, "limit"},
        {"POST", one + "/trigger", json{{"at", "2030-01-01T00:00:00Z"}}, "at"},
    };
    const auto before = key_dump();
    for (const Case& c : cases) {
        SCOPED_TRACE(c.method + " " + c.target.substr(0, 60));
        const HttpResult r = http().request(
            {.method = c.method,
             .target = c.target,
             .body = c.body ? std::optional<std::string>(c.body->dump()) : std::nullopt});
        EXPECT_EQ(r.status, 400u) << r.body;
        EXPECT_EQ(r.code(), "bad_request") << r.body;
        const std::string detail = r.json().value("detail", "");
        EXPECT_NE(detail.find(c.field), std::string::npos) << detail;
    }
    EXPECT_EQ(key_dump(), before);
}

// The upsert sends the first occurrence itself; the second is the service's scheduler's.
TEST_F(HttpSchedulesTest, TheServedSchedulerFiresAndItsFiguresAreMetrics) {
    stop_service();
    start([](server::service::ServiceConfig& c) { c.scrape_interval = Duration(0); });
    ASSERT_EQ(put("tick", {{"every", "1s"}, {"payload", "tick"}}).status, 201u);
    ASSERT_TRUE(eventually([&] { return totals()["sent"].get<std::uint64_t>() >= 2; })) << totals();
    EXPECT_GE(totals()["schedule_fired"].get<std::uint64_t>(), 1u) << totals();

    std::string body;
    const std::string lag = R"(delayq_scheduler_lag_seconds{queue="q"} )";
    ASSERT_TRUE(eventually([&] {
        body = http().get("/metrics").body;
        return body.find(lag) != std::string::npos;
    })) << body;
    const std::string fired = R"(delayq_schedule_occurrences_total{queue="q",outcome="fired"} )";
    const std::size_t at = body.find(fired);
    ASSERT_NE(at, std::string::npos) << body;
    EXPECT_GE(std::stod(body.substr(at + fired.size())), 1.0) << body;
    EXPECT_NE(body.find(R"(delayq_schedule_occurrences_total{queue="q",outcome="missed"} 0)"),
              std::string::npos)
        << body;
    const auto [status, said] = promtool_check_metrics(body);
    EXPECT_EQ(status, 0) << said << "\n" << body;
}

// Without a scheduler only the upsert's own occurrence is sent: none follows once the second's
// instant has passed.
TEST_F(HttpSchedulesTest, WithoutSchedulersNothingIsClaimed) {
    stop_service();
    start([](server::service::ServiceConfig& c) {
        c.schedulers = false;
        c.scrape_interval = Duration(0);
    });
    const HttpResult created = put("tick", {{"every", "1s"}, {"payload", "tick"}});
    ASSERT_EQ(created.status, 201u) << created.body;
    const std::int64_t second = created.json()["next_ms"].get<std::int64_t>() + 1000;
    ASSERT_TRUE(eventually([&] { return redis().time_ms() > second + 500; }));
    const json sent = totals();
    EXPECT_EQ(sent["sent"], 1) << sent;
    const std::string body = http().get("/metrics").body;
    EXPECT_EQ(body.find("delayq_scheduler_lag_seconds"), std::string::npos) << body;
    const std::string fired = R"(delayq_schedule_occurrences_total{queue="q",outcome="fired"} )" +
                              std::to_string(sent["schedule_fired"].get<std::uint64_t>()) + "\n";
    EXPECT_NE(body.find(fired), std::string::npos) << body;
}

}  // namespace
}  // namespace delayq::test
