#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "auth/queue_pattern.hpp"
#include "auth/scope.hpp"
#include "auth/token_file.hpp"
#include "cli/cli_runner.hpp"
#include "server/support/http_client.hpp"
#include "server/support/serve_process.hpp"
#include "support/fixture.hpp"
#include "support/redis_server.hpp"

namespace delayq::test {

// `delayq serve` with an auth file (in the server's directory) that holds one token, `first`,
// which may send to every queue: what the tests of re-reading the file start from. Constructed
// once the process serves on its free port (std::runtime_error if it does not).
struct ServeWithTokens {
    explicit ServeWithTokens(const RedisServer& redis)
        : file((redis.dir() / "tokens").string()),
          first(add_sender("first")),
          port(free_port()),
          serve(
              {"serve", "--listen", listen_arg(port), "--redis", redis.url(), "--auth-file", file}),
          http(client_once_listening(serve, port)) {}

    // Adds a token that may send to every queue; returns it.
    std::string add_sender(const std::string& name) const {
        return server::add_token(file, name, {server::Scope::kSend},
                                 {*server::QueuePattern::parse("*")});
    }

    static HttpClient client_once_listening(CliProcess& serve, int port) {
        if (!await_listening(serve)) throw std::runtime_error("delayq serve did not listen");
        return HttpClient(static_cast<std::uint16_t>(port));
    }

    std::string file;
    std::string first;
    int port;
    CliProcess serve;
    HttpClient http;
};

}  // namespace delayq::test
