// delayq push test: one signed request to a queue's push target, now, and its answer.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <future>
#include <memory>
#include <string>

#include "command_set.hpp"
#include "errors.hpp"
#include "push/http_client.hpp"
#include "push/request.hpp"
#include "push_network.hpp"
#include "session.hpp"

namespace delayq::cli {
namespace {

struct TestArgs {
    std::string queue;
    std::string payload;
    PushNetworkArgs network;
};

const char* action_text(push::PushAction action) {
    switch (action) {
        case push::PushAction::kAck:
            return "deliver it (ack)";
        case push::PushAction::kRetry:
            return "retry it later";
        case push::PushAction::kDeadLetter:
            return "dead-letter it";
    }
    return "?";
}

int test(const TestArgs& a, const Invocation& invocation) {
    Session session(invocation);
    PushTargets push = session.push_targets(a.queue);
    push::PusherOptions options;
    a.network.apply(options);
    session.connect();
    const std::optional<PushTargets::ForPusher> read = push.read_for_pusher();
    if (!read) throw RuntimeFailure("queue " + a.queue + " has no push target");
    const PushTarget& target = read->target;
    // A message of its own: the receiver sees a webhook-id no real message has. Its due time
    // is this host's clock, as there is no message to take one from.
    const auto now = std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now());
    const std::string id = "test-" + std::to_string(now.time_since_epoch().count());
    const Delivery delivery(a.queue, Lease(id, 0), a.payload, 1, 1, now, now);
    push::HttpRequest request =
        push::push_request(target, push::WebhookSigner(target.secrets), delivery, now);

    std::promise<push::HttpAnswer> promise;
    std::future<push::HttpAnswer> future = promise.get_future();
    const auto started = std::chrono::steady_clock::now();
    {
        push::HttpClient http(push::HttpClientOptions{options.network, options.ca_file, 1});
        http.submit(std::move(request),
                    [&promise](push::HttpAnswer answer) { promise.set_value(std::move(answer)); });
        future.wait();
    }
    const push::HttpAnswer answer = future.get();
    const auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - started);
    const push::PushVerdict verdict = answer.verdict();
    const std::string method(to_string(target.method));
    if (answer.failure) {
        std::printf("%s %s: no answer after %lld ms\n", method.c_str(), target.url.c_str(),
                    static_cast<long long>(elapsed.count()));
    } else {
        std::printf("%s %s: %d in %lld ms\n", method.c_str(), target.url.c_str(), answer.status,
                    static_cast<long long>(elapsed.count()));
    }
    if (!verdict.error.empty()) std::printf("error: %s\n", verdict.error.c_str());
    std::printf("a pusher would %s\n", action_text(verdict.action));
    return verdict.action == push::PushAction::kAck ? kExitOk : kExitFailure;
}

}  // namespace

void add_push_test(CommandSet& set) {
    auto a = std::make_shared<TestArgs>();
    CLI::App& cmd = set.add(
        {.path = "push test",
         .summary = "Send one signed request to a queue's push target now, and show the answer",
         .details =
             R"(Sends one request as a pusher would send a message (the same headers, signed with
the target's secrets), with the id test-<unix ms> and the payload given, and prints the status,
the time it took and what a pusher would do with a message so answered. Nothing is written to
Redis. Needs the pusher or admin role: it reads the target's secrets. Exit status 0 for a 2xx
answer, else 1.

Examples:
  delayq push test orders
  delayq push test orders --payload '{"order": 42}')"},
        [a](const Invocation& i) { return test(*a, i); });
    cmd.add_option("QUEUE", a->queue, "The queue")->required();
    cmd.add_option("--payload", a->payload, "The request's body (default: empty)");
    add_push_network_options(cmd, a->network);
}

}  // namespace delayq::cli
