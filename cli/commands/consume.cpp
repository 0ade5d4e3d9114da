// delayq consume: prints (or hands to a command) each message as it falls due, and acks it.
#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdio>
#include <delayq/validate.hpp>
#include <memory>

#include "batch_printer.hpp"
#include "command_consumer.hpp"
#include "command_set.hpp"
#include "errors.hpp"
#include "process.hpp"
#include "session.hpp"
#include "signals.hpp"
#include "time_text.hpp"

namespace delayq::cli {
namespace {

// Commands run at once: child processes of this one, a bound of the command line's own (a
// library Consumer takes more handler threads).
constexpr std::size_t kMaxCommands = 1000;

struct ConsumeArgs {
    std::string queue;
    std::size_t max = 0;
    std::string timeout;
    std::size_t concurrency = 1;
    std::string visibility;
    bool raw = false;
    bool json = false;
    CLI::Option* max_opt = nullptr;
    CLI::Option* timeout_opt = nullptr;
    CLI::Option* visibility_opt = nullptr;
};

int print_deliveries(Session& session, Leases leases, const PrintOptions& options) {
    session.connect();
    BatchPrinter printer(std::move(leases), options);
    std::atomic<bool> interrupted{false};
    // Before run() starts the printer's threads, which must not take the signals.
    SignalWatcher signals([&](int) {
        interrupted = true;
        std::fprintf(stderr, "delayq: stopping: acking what was printed (again to exit at once)\n");
        printer.request_stop();
    });
    const std::size_t printed = printer.run();
    if (interrupted) std::fprintf(stderr, "delayq: stopped after %zu messages\n", printed);
    return kExitOk;
}

int consume(const ConsumeArgs& a, const Invocation& invocation) {
    const TrailingCommand& trailing = invocation.trailing;
    if (trailing.given && trailing.argv.empty()) {
        throw UsageError("a command is expected after --");
    }
    if (a.raw && a.json) throw UsageError("give either --json or --raw, not both");
    if (a.raw && trailing.given) throw UsageError("--raw cannot be used with a command");
    if (a.json && trailing.given) throw UsageError("--json cannot be used with a command");
    if (trailing.given && !find_executable(trailing.argv.front())) {
        throw UsageError("command not found: " + trailing.argv.front());
    }
    std::optional<std::size_t> max;
    if (a.max_opt->count() > 0) max = a.max;
    std::optional<std::chrono::milliseconds> timeout;
    if (a.timeout_opt->count() > 0) timeout = duration_arg(a.timeout);
    std::optional<Duration> visibility;
    if (a.visibility_opt->count() > 0) {
        visibility = duration_arg(a.visibility);
        if (visibility->count() < 1) throw UsageError("--visibility must be at least 1ms");
        // The bounds a Consumer has, for the print mode too, which leases without one.
        validate_consumer_options({.visibility_timeout = *visibility});
    }

    Session session(invocation);
    Leases leases = session.leases(a.queue);
    if (!trailing.given) {
        PrintOptions print{.format = a.raw ? PrintFormat::kRaw : PrintFormat::kJson,
                           .max = max,
                           .timeout = timeout};
        if (visibility) print.visibility = *visibility;
        return print_deliveries(session, std::move(leases), print);
    }
    session.connect();
    return run_command_consumer(std::move(leases), {.command = trailing.argv,
                                                    .concurrency = a.concurrency,
                                                    .max = max,
                                                    .timeout = timeout,
                                                    .visibility = visibility});
}

}  // namespace

void add_consume(CommandSet& set) {
    auto a = std::make_shared<ConsumeArgs>();
    CLI::App& cmd = set.add(
        {.path = "consume",
         .summary = "Receive messages as they fall due: print them, or run a command for each",
         .details = R"(Or: delayq consume [OPTIONS] QUEUE -- CMD [ARGS...]

Each message is printed as one JSON line (with or without --json; docs/cli.md, Delivery):
  {"attempt":1,"delivered_ms":...,"due_ms":...,"id":"...","payload":"..."}
("payload_base64" instead of "payload" when the bytes are not UTF-8; times are the Redis
server's, in unix milliseconds.) Messages are leased in batches, written, then acked: a message
is acked only once it was written whole, and what a closed output did not take goes back to the
queue.

With -- CMD [ARGS...], CMD runs once per message with the payload on its stdin and DELAYQ_QUEUE,
DELAYQ_ID, DELAYQ_ATTEMPT and DELAYQ_DUE_MS in its environment. Exit status 0 acks the message;
anything else retries it later with backoff, keeping the command's last stderr lines as the
message's last error (see delayq peek --json, delayq dead list).

Ctrl-C or SIGTERM stops gracefully: running handlers finish and are acked, nothing is lost.

Examples:
  delayq consume orders
  delayq consume orders --max 1 --timeout 10s --raw > payload.bin
  delayq consume orders --json | jq -r .payload
  delayq consume orders --concurrency 4 -- ./close-order.sh
  delayq consume mail -- sh -c 'sendmail -t')"},
        [a](const Invocation& i) { return consume(*a, i); });
    cmd.add_option("QUEUE", a->queue, "Queue name")->required();
    a->max_opt = cmd.add_option("--max", a->max, "Exit after N messages")
                     ->type_name("N")
                     ->check(CLI::Range(std::size_t{1}, std::size_t{1'000'000'000}));
    a->timeout_opt =
        cmd.add_option("--timeout", a->timeout, "Exit when no message arrives for this long")
            ->type_name("DUR");
    cmd.add_option("--concurrency", a->concurrency,
                   "Commands run at once (default 1; printing needs no more)")
        ->type_name("N")
        ->check(CLI::Range(std::size_t{1}, kMaxCommands));
    a->visibility_opt =
        cmd.add_option("--visibility", a->visibility,
                       "Lease length (default 30s); renewed while a message is being handled")
            ->type_name("DUR");
    cmd.add_flag("--json", a->json,
                 "One JSON object per line (the default output, for scripts to say so)");
    cmd.add_flag("--raw", a->raw, "Write only the payload bytes, nothing else");
}

}  // namespace delayq::cli
