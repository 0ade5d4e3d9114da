#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli_runner.hpp"
#include "delayq/delayq.hpp"
#include "support/redis_server.hpp"

namespace delayq::test {

// What one row runs against: a client on the test's redis-server and a queue of its own, plus
// what the row's preparation left (a message id, a leased delivery).
struct CatalogueEnv {
    Client& client;
    RedisServer& server;
    Queue q;
    QueueAdmin admin;
    Leases leases;
    std::string id{};
    std::optional<Delivery> delivery{};
};

enum class Verdict { kValid, kInvalid };

// One row of the bad-input catalogue (issue 5, scenario 9). An invalid row must throw
// InvalidArgument (rooted at delayq::Error) whose message contains `message`, and leave the
// keyspace exactly as it was; through the CLI it must exit 2 with `cli_message` (or `message`)
// on stderr, print nothing on stdout and write nothing. A valid row must work exactly: its
// checks are part of the row.
struct CatalogueCase {
    std::string topic;  // payload, delay, at, expire_after, reschedule, nack, visibility, ...
    std::string what;
    Verdict verdict = Verdict::kInvalid;
    std::string message{};
    // Runs before the "nothing written" snapshot; may write (a message to reschedule, a lease).
    std::function<void(CatalogueEnv&)> prepare{};
    // Library call. Empty when the C++ API cannot express the input (see `what`).
    std::function<void(CatalogueEnv&)> library{};
    // delayq arguments; "@Q" stands for the row's queue and "@ID" for the prepared id. Empty when
    // the command line cannot express the input.
    std::vector<std::string> cli{};
    std::string cli_input{};  // stdin
    std::string cli_message{};
    // For a valid CLI row: checks the exact effect (the library reads back what the CLI wrote).
    std::function<void(CatalogueEnv&, const CliResult&)> cli_check{};
};

std::vector<CatalogueCase> bad_input_catalogue();

}  // namespace delayq::test
