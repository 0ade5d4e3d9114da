// delayq push run: a pusher, sending due messages to their queues' push targets until a signal.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <memory>

#include "background_run.hpp"
#include "command_set.hpp"
#include "errors.hpp"
#include "push/pusher.hpp"
#include "push_network.hpp"
#include "session.hpp"

namespace delayq::cli {
namespace {

struct RunArgs {
    std::vector<std::string> queues;
    std::size_t max_in_flight = push::PusherOptions{}.max_in_flight;
    PushNetworkArgs network;
};

struct Totals {
    std::uint64_t acked = 0;
    std::uint64_t retried = 0;
    std::uint64_t dead_lettered = 0;
    std::uint64_t lost = 0;
    bool operator==(const Totals&) const = default;
};

Totals totals_of(const push::PusherStats& stats) {
    Totals t;
    for (const auto& [queue, s] : stats.queues) {
        t.acked += s.acked;
        t.retried += s.retried;
        t.dead_lettered += s.dead_lettered;
        t.lost += s.lost;
    }
    return t;
}

// A line on stderr whenever the counts moved since the last one; quiet while nothing happens.
class Reporter {
  public:
    explicit Reporter(const push::Pusher& pusher) : pusher_(pusher) {}

    void report() {
        const push::PusherStats now = pusher_.stats();
        const Totals t = totals_of(now);
        if (t == last_ && now.queues.size() == queues_ && now.redis_errors == redis_errors_) {
            return;
        }
        std::fprintf(stderr,
                     "delayq push run: delivered %llu, to retry %llu, dead-lettered %llu "
                     "(in all: %llu delivered); %zu in flight, %zu queue(s) followed",
                     static_cast<unsigned long long>(t.acked - last_.acked),
                     static_cast<unsigned long long>(t.retried - last_.retried),
                     static_cast<unsigned long long>(t.dead_lettered - last_.dead_lettered),
                     static_cast<unsigned long long>(t.acked), now.in_flight, now.queues.size());
        if (t.lost != last_.lost) {
            std::fprintf(stderr, "; %llu settled after their lease ended",
                         static_cast<unsigned long long>(t.lost - last_.lost));
        }
        if (now.redis_errors != redis_errors_) {
            std::fprintf(stderr, "; %llu Redis error(s), retrying",
                         static_cast<unsigned long long>(now.redis_errors - redis_errors_));
        }
        std::fprintf(stderr, "\n");
        last_ = t;
        queues_ = now.queues.size();
        redis_errors_ = now.redis_errors;
    }

  private:
    const push::Pusher& pusher_;
    Totals last_;
    std::size_t queues_ = 0;
    std::uint64_t redis_errors_ = 0;
};

int run(const RunArgs& a, const Invocation& invocation) {
    Session session(invocation);
    push::PusherOptions options{.queues = a.queues, .max_in_flight = a.max_in_flight};
    a.network.apply(options);
    // Checks the options and queue names (exit 2) and contacts nothing yet.
    push::Pusher pusher(session.client(), options);
    Reporter reporter(pusher);
    return run_until_signal(
        session, "delayq push run",
        "pushing the due messages of " + queues_text(a.queues, "every queue with a push target"),
        {[&] { pusher.start(); }, [&] { pusher.stop(); }, [&] { pusher.wait(); },
         [&] { reporter.report(); }});
}

}  // namespace

void add_push_run(CommandSet& set) {
    auto a = std::make_shared<RunArgs>();
    CLI::App& cmd = set.add(
        {.path = "push run",
         .summary = "Run a pusher: send due messages to their push targets until SIGTERM",
         .details =
             R"(Sends the due messages of the queues named, or of every queue with a push target
(found again every few seconds), each as one signed HTTP request to its queue's target, and
acks, retries or dead-letters it by the answer (docs/push.md). Any number may run against one
Redis, beside delayq serve's: they share each queue's messages and its target's max in flight
and rate. Logs on stderr what it delivered, once a second while anything happens; Redis errors
are logged and retried. SIGTERM or Ctrl-C stops it: it takes no more messages and waits up to
10 s for the requests in flight (exit status 0).

Examples:
  delayq push run
  delayq push run orders --push-deny-private)"},
        [a](const Invocation& i) { return run(*a, i); });
    cmd.add_option("QUEUE", a->queues, "Only these queues (default: every queue with a target)");
    cmd.add_option("--max-in-flight", a->max_in_flight,
                   "Requests in flight at once across every queue")
        ->check(CLI::Range(std::size_t{1}, kMaxPushInFlight))
        ->capture_default_str();
    add_push_network_options(cmd, a->network);
}

}  // namespace delayq::cli
