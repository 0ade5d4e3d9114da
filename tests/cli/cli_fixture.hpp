#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_runner.hpp"
#include "support/redis_server.hpp"

namespace delayq::test {

using Json = nlohmann::json;

// One redis-server and one private DELAYQ_HOME per test. delayq runs with DELAYQ_REDIS_URL set
// to the server (tests of the --redis option and the managed local server change that).
class CliTest : public ::testing::Test {
  protected:
    CliTest();
    ~CliTest() override;

    // The options every run gets: this test's Redis and home, nothing from the caller's shell.
    CliOptions options(CliOptions extra = {}) const;
    CliResult cli(const std::vector<std::string>& args, CliOptions extra = {}) const;
    std::unique_ptr<CliProcess> start(const std::vector<std::string>& args,
                                      CliOptions extra = {}) const;

    // Sends one message and returns its id (fails the test otherwise).
    std::string send(const std::string& queue, const std::string& payload,
                     std::vector<std::string> more = {}) const;
    // `delayq peek QUEUE --json` for one state, parsed.
    std::vector<Json> peek(const std::string& queue, const std::string& state) const;
    Json stats(const std::string& queue) const;

    // Everything in the server: DBSIZE and DEBUG DIGEST (a hash of all keys and values).
    std::string fingerprint() const;

    RedisServer redis_;
    std::filesystem::path scratch_;  // a temporary directory, removed at the end
    std::filesystem::path home_;     // DELAYQ_HOME
};

// Feeds `lines` (`delayq acl`'s output, say) to redis-cli on `redis`, as the all-powerful
// default user.
void redis_cli(const RedisServer& redis, const std::string& lines);

std::vector<Json> json_lines(const std::string& text);
std::size_t count_lines(const std::string& text);
// Polls pred every few milliseconds until it holds or the deadline passes.
bool eventually(const std::function<bool()>& pred,
                std::chrono::seconds timeout = std::chrono::seconds(60));

}  // namespace delayq::test
