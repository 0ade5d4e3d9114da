// GET /v1/openapi.yaml: the document parses as OpenAPI 3.1 with the structure the API promises
// (tests/server/openapi_check.py, with python3-yaml), and its operations are exactly the routes
// the server has, each with the scope the route really requires.
#include "openapi/openapi.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/beast/http/verb.hpp>
#include <cstdio>
#include <delayq/error.hpp>
#include <delayq/limits.hpp>
#include <delayq/time.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "api/admin_json.hpp"
#include "api/leases_json.hpp"
#include "api/schedules_json.hpp"
#include "json/durability.hpp"
#include "json/message.hpp"
#include "json/schedule.hpp"
#include "server/support/service_fixture.hpp"

namespace delayq::test {
namespace {

// The checker's exit status and what it printed; `options` before the file.
std::pair<int, std::string> run_checker(const std::string& yaml, const std::string& options = "") {
    const auto path = std::filesystem::temp_directory_path() /
                      ("delayq-openapi-" + std::to_string(::getpid()) + ".yaml");
    {
        std::ofstream out(path);
        out << yaml;
    }
    const std::string cmd = std::string("python3 ") + DELAYQ_OPENAPI_CHECK + " " + options + " " +
                            path.string() + " 2>&1";
    FILE* p = ::popen(cmd.c_str(), "r");
    std::string said;
    char buf[512];
    while (p != nullptr && std::fgets(buf, sizeof buf, p) != nullptr) said += buf;
    const int status = p != nullptr ? ::pclose(p) : -1;
    std::filesystem::remove(path);
    return {status, said};
}

std::set<std::string> lines_of(const std::string& text) {
    std::set<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (!line.empty()) out.insert(line);
    }
    return out;
}

class OpenApiTest : public ServiceTest {};

TEST_F(OpenApiTest, TheDocumentIsServedAsYamlWithoutAToken) {
    add_token("reader", "read", "*");
    start([this](server::service::ServiceConfig& c) { c.auth_file = auth_file(); });
    const HttpResult r = http().get("/v1/openapi.yaml");
    ASSERT_EQ(r.status, 200u) << r.body;
    EXPECT_EQ(r.header("content-type"), "application/yaml");
    EXPECT_EQ(r.body, server::openapi_yaml());
    EXPECT_TRUE(r.body.starts_with("openapi: 3.1.")) << r.body.substr(0, 40);
}

TEST_F(OpenApiTest, ItsOperationsAreTheServersRoutesWithTheirScopes) {
    start();
    const HttpResult r = http().get("/v1/openapi.yaml");
    ASSERT_EQ(r.status, 200u) << r.body;
    const auto [status, said] = run_checker(r.body);
    ASSERT_EQ(status, 0) << said;

    // The dashboard's static files (GET /, /ui, /ui/, /ui/{file}: routes/ui_routes.cpp) are
    // routes of the server but not of the API, so the document leaves them out on purpose; they
    // are named here so that any other route missing from the document still fails.
    const std::set<std::string> dashboard = {"/", "/ui", "/ui/", "/ui/{file}"};
    std::set<std::string> routes;
    for (const auto& route : service().router().routes()) {
        if (route.method == boost::beast::http::verb::get && dashboard.contains(route.pattern)) {
            continue;
        }
        routes.insert(std::string(boost::beast::http::to_string(route.method)) + " " +
                      route.pattern + " " + (route.scope.empty() ? "-" : route.scope));
    }
    EXPECT_EQ(lines_of(said), routes);
    EXPECT_GE(routes.size(), 20u);
}

// Each bound a schema gives is where the server's parsing starts to refuse: the value is taken,
// one more is a 400 (InvalidArgument).
TEST(OpenApiLimitsTest, TheSchemasBoundsAreWhereTheServerRefuses) {
    const auto [status, said] = run_checker(std::string(server::openapi_yaml()), "--limits");
    ASSERT_EQ(status, 0) << said;
    std::map<std::string, std::uint64_t> bound;
    std::istringstream in(said);
    for (std::string name, value; in >> name >> value;) bound[name] = std::stoull(value);
    using Json = nlohmann::json;
    const auto list_of = [](std::uint64_t n, const Json& item) {
        return Json(std::vector<Json>(static_cast<std::size_t>(n), item));
    };
    const std::map<std::string, std::function<void(std::uint64_t)>> parse = {
        {"lease_max",
         [](std::uint64_t n) {
             server::parse_lease_request({{"max", n}});
         }},
        {"lease_wait_ms",
         [](std::uint64_t n) {
             server::parse_lease_request({{"wait", n}});
         }},
        {"batch_messages",
         [&](std::uint64_t n) {
             json::parse_batch({{"messages", list_of(n, {{"payload", "x"}})}});
         }},
        {"dead_ids",
         [&](std::uint64_t n) {
             server::parse_dead_selector({{"ids", list_of(n, "m")}});
         }},
        {"duration_ms", [](std::uint64_t n) { parse_duration(std::to_string(n)); }},
        {"time_ms", [](std::uint64_t n) { parse_time(std::to_string(n)); }},
        {"message_max_attempts",
         [](std::uint64_t n) {
             json::parse_message({{"payload", "x"}, {"max_attempts", n}});
         }},
        {"wait_replicas",
         [](std::uint64_t n) {
             // Unsigned, as parsed from a body's text.
             Json body = {{"wait_replicas", n}, {"wait_timeout", std::uint64_t{1000}}};
             json::take_durability(body);
         }},
        {"wait_timeout_ms",
         [](std::uint64_t n) {
             Json body = {{"wait_replicas", std::uint64_t{1}}, {"wait_timeout", n}};
             json::take_durability(body);
         }},
        {"list_limit",
         [](std::uint64_t n) {
             server::parse_list_query({{"state", "ready"}, {"limit", std::to_string(n)}});
         }},
        {"settings_max_attempts",
         [](std::uint64_t n) {
             server::parse_queue_patch({{"max_attempts", n}});
         }},
        {"settings_dead_max_count",
         [](std::uint64_t n) {
             server::parse_queue_patch({{"dead_max_count", n}});
         }},
        {"schedule_list_limit",
         [](std::uint64_t n) {
             server::parse_schedule_list_query({{"limit", std::to_string(n)}});
         }},
        {"schedule_next_count",
         [](std::uint64_t n) {
             server::parse_next_query({{"count", std::to_string(n)}});
         }},
        {"schedule_max_attempts",
         [](std::uint64_t n) {
             json::parse_schedule_spec({{"every", "1h"}, {"max_attempts", n}});
         }},
        {"schedule_max_runs",
         [](std::uint64_t n) {
             json::parse_schedule_spec({{"every", "1h"}, {"max_runs", n}});
         }},
    };
    // And each is the shared limit (delayq/limits.hpp, from src/shared_constants.txt) that the
    // library and the scripts check too.
    const std::map<std::string, std::uint64_t> shared = {
        {"lease_max", kMaxBatch},
        {"leases_per_request", kMaxBatch},
        {"batch_messages", kMaxBatch},
        {"dead_ids", kMaxBatch},
        {"list_limit", kMaxBatch},
        {"duration_ms", kMaxTimeMs},
        {"time_ms", kMaxTimeMs},
        {"message_max_attempts", kMaxAttempts},
        {"settings_max_attempts", kMaxAttempts},
        {"settings_dead_max_count", kMaxDeadCount},
        {"wait_replicas", static_cast<std::uint64_t>(kMaxWaitReplicas)},
        {"wait_timeout_ms", static_cast<std::uint64_t>(kMaxWaitTimeout.count())},
        {"schedule_list_limit", kMaxBatch},
        {"schedule_next_count", kMaxBatch},
        {"schedule_max_attempts", kMaxAttempts},
        {"schedule_max_runs", kMaxScheduleRuns},
    };
    for (const auto& [name, value] : shared) EXPECT_EQ(bound[name], value) << name;
    // A list of leases is held to the bound of a lease request's max (leases_json.cpp).
    bound.erase("leases_per_request");
    ASSERT_EQ(bound.size(), parse.size()) << said;
    for (const auto& [name, check] : parse) {
        SCOPED_TRACE(name);
        ASSERT_TRUE(bound.contains(name)) << said;
        EXPECT_NO_THROW(check(bound[name]));
        EXPECT_THROW(check(bound[name] + 1), InvalidArgument);
    }
}

TEST_F(OpenApiTest, TheCheckerRefusesADocumentMissingTheProblemCodes) {
    std::string yaml(server::openapi_yaml());
    const std::string code = "            - redis_out_of_memory\n";
    const std::size_t at = yaml.find(code);
    ASSERT_NE(at, std::string::npos);
    yaml.erase(at, code.size());
    const auto [status, said] = run_checker(yaml);
    EXPECT_NE(status, 0);
    EXPECT_NE(said.find("Problem.code"), std::string::npos) << said;
}

}  // namespace
}  // namespace delayq::test
