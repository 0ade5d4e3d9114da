// delayq consume: prints (or hands to a command) each message as it falls due, and acks it.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <memory>
#include <thread>

#include "batch_printer.hpp"
#include "commands/commands.hpp"
#include "errors.hpp"
#include "io.hpp"
#include "process.hpp"
#include "run_control.hpp"
#include "session.hpp"
#include "signals.hpp"
#include "time_text.hpp"

namespace delayq::cli {
namespace {

struct ConsumeArgs {
    std::string redis;
    std::string queue;
    std::size_t max = 0;
    std::string timeout;
    std::size_t concurrency = 1;
    std::string visibility;
    bool raw = false;
    CLI::Option* max_opt = nullptr;
    CLI::Option* timeout_opt = nullptr;
    CLI::Option* visibility_opt = nullptr;
};

// Runs the command for a delivery: exit status 0 acks it, anything else nacks it.
Outcome run_command_for(const std::vector<std::string>& command, const Delivery& d) {
    const CommandResult r = run_command(command, d.payload(),
                                        {"DELAYQ_QUEUE=" + d.queue(), "DELAYQ_ID=" + d.id(),
                                         "DELAYQ_ATTEMPT=" + std::to_string(d.attempt()),
                                         "DELAYQ_DUE_MS=" + std::to_string(unix_ms(d.due()))});
    if (r.succeeded()) return Ack{};
    std::fprintf(stderr, "delayq: message %s, attempt %d of %d: %s; %s\n", d.id().c_str(),
                 d.attempt(), d.max_attempts(), r.headline().c_str(),
                 d.attempt() < d.max_attempts() ? "it will be retried" : "no attempts left");
    return Nack{.error = r.describe()};
}

// Without a command: batches printed to stdout (BatchPrinter).
int print_messages(const ConsumeArgs& a, const PrintOptions& options) {
    Session session(a.redis);
    Leases leases = session.leases(a.queue);
    session.connect();
    BatchPrinter printer(leases, options);
    std::atomic<bool> interrupted{false};
    SignalWatcher signals([&](int) {
        interrupted = true;
        std::fprintf(stderr, "delayq: stopping: acking what was printed (again to exit at once)\n");
        printer.request_stop();
    });
    const std::size_t printed = printer.run();
    if (interrupted) std::fprintf(stderr, "delayq: stopped after %zu messages\n", printed);
    return kExitOk;
}

int consume(const ConsumeArgs& a, const TrailingCommand& trailing) {
    if (trailing.given && trailing.argv.empty()) {
        throw UsageError("a command is expected after --");
    }
    if (a.raw && trailing.given) throw UsageError("--raw cannot be used with a command");
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
    }
    if (!trailing.given) {
        PrintOptions print;
        print.format = a.raw ? PrintFormat::kRaw : PrintFormat::kJson;
        print.max = max;
        print.timeout = timeout;
        if (visibility) print.visibility = *visibility;
        return print_messages(a, print);
    }
    ConsumerOptions options;
    // Never more handlers than messages wanted: see RunControl.
    options.concurrency = max ? std::min(a.concurrency, *max) : a.concurrency;
    // With --max, lease no message beyond the handlers: one leased and then handed back at the
    // end would still count as delivered.
    if (max) options.prefetch = 0;
    if (visibility) options.visibility_timeout = *visibility;
    options.on_dead_letter = [](const DeadLetterEvent& e) {
        std::fprintf(stderr,
                     "delayq: message %s moved to the dead letters (%s after %d attempts)\n",
                     e.id.c_str(), e.reason.c_str(), e.attempts);
    };

    Session session(a.redis);
    Leases leases = session.leases(a.queue);
    session.connect();

    RunControl control(max, options.concurrency, timeout);
    Consumer consumer(
        leases,
        [&](const Delivery& d) -> Outcome {
            if (!control.begin()) {
                // Only after a lost lease can more than --max be fetched; hand it back unstarted
                // (the ack that follows then finds the lease gone and changes nothing).
                try {
                    leases.release(d.lease());
                } catch (const Error&) {
                    // its lease runs out and it is delivered again
                }
                return Ack{};
            }
            struct EndGuard {
                RunControl& control;
                ~EndGuard() { control.end(); }
            } guard{control};
            return run_command_for(trailing.argv, d);
        },
        options);
    control.set_stop([&] { consumer.stop(); });
    std::atomic<bool> interrupted{false};
    SignalWatcher signals([&](int) {
        interrupted = true;
        std::fprintf(stderr,
                     "delayq: stopping: letting running handlers finish (again to exit at once)\n");
        control.request_stop();
    });
    consumer.start();
    // The consumer can also end by itself (a fatal ConfigurationError): then the stop must still
    // reach RunControl, which may be holding handlers back.
    std::exception_ptr failure;
    std::thread waiter([&] {
        try {
            consumer.wait();
        } catch (...) {
            failure = std::current_exception();
        }
        control.request_stop();
    });
    control.wait();
    waiter.join();
    if (failure) std::rethrow_exception(failure);
    if (interrupted)
        std::fprintf(stderr, "delayq: stopped after %zu messages\n", control.handled());
    return kExitOk;
}

}  // namespace

void add_consume(CLI::App& app, Commands& out, const TrailingCommand& trailing) {
    auto a = std::make_shared<ConsumeArgs>();
    CLI::App* cmd = app.add_subcommand(
        "consume", "Receive messages as they fall due: print them, or run a command for each");
    add_redis_option(*cmd, a->redis);
    cmd->add_option("QUEUE", a->queue, "Queue name")->required();
    a->max_opt = cmd->add_option("--max", a->max, "Exit after N messages")
                     ->type_name("N")
                     ->check(CLI::Range(std::size_t{1}, std::size_t{1'000'000'000}));
    a->timeout_opt =
        cmd->add_option("--timeout", a->timeout, "Exit when no message arrives for this long")
            ->type_name("DUR");
    cmd->add_option("--concurrency", a->concurrency, "Messages handled at once (default 1)")
        ->type_name("N")
        ->check(CLI::Range(std::size_t{1}, std::size_t{1000}));
    a->visibility_opt =
        cmd->add_option("--visibility", a->visibility,
                        "Lease length (default 30s); renewed while a message is being handled")
            ->type_name("DUR");
    cmd->add_flag("--raw", a->raw, "Write only the payload bytes, nothing else");
    cmd->footer(R"(Or: delayq consume [OPTIONS] QUEUE -- CMD [ARGS...]

Each message is printed as one JSON line and acked:
  {"id":"...","payload":"...","attempt":1,"due_ms":...,"delivered_ms":...}
("payload_base64" instead of "payload" when the bytes are not UTF-8; times are the Redis
server's, in unix milliseconds.)

With -- CMD [ARGS...], CMD runs once per message with the payload on its stdin and DELAYQ_QUEUE,
DELAYQ_ID, DELAYQ_ATTEMPT and DELAYQ_DUE_MS in its environment. Exit status 0 acks the message;
anything else retries it later with backoff, keeping the command's last stderr lines as the
message's last error (see delayq peek --json, delayq dead list).

Ctrl-C or SIGTERM stops gracefully: running handlers finish and are acked, nothing is lost.

Examples:
  delayq consume orders
  delayq consume orders --max 1 --timeout 10s --raw > payload.bin
  delayq consume orders --concurrency 4 -- ./close-order.sh
  delayq consume mail -- sh -c 'sendmail -t'
)");
    out.push_back({cmd, [a, &trailing] { return consume(*a, trailing); }});
}

}  // namespace delayq::cli
