// GET /v1/openapi.yaml: the document parses as OpenAPI 3.1 with the structure the API promises
// (tests/server/openapi_check.py, with python3-yaml), and its operations are exactly the routes
// the server has, each with the scope the route really requires.
#include "openapi/openapi.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/beast/http/verb.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "server/support/service_fixture.hpp"

namespace delayq::test {
namespace {

// The checker's exit status and what it printed.
std::pair<int, std::string> run_checker(const std::string& yaml) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("delayq-openapi-" + std::to_string(::getpid()) + ".yaml");
    {
        std::ofstream out(path);
        out << yaml;
    }
    const std::string cmd =
        std::string("python3 ") + DELAYQ_OPENAPI_CHECK + " " + path.string() + " 2>&1";
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

    std::set<std::string> routes;
    for (const auto& route : service().router().routes()) {
        routes.insert(std::string(boost::beast::http::to_string(route.method)) + " " +
                      route.pattern + " " + (route.scope.empty() ? "-" : route.scope));
    }
    EXPECT_EQ(lines_of(said), routes);
    EXPECT_GE(routes.size(), 20u);
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
