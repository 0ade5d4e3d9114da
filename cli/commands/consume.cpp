// delayq consume: prints (or hands to a command) each message as it falls due, and acks it.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#include "commands/commands.hpp"
#include "errors.hpp"
#include "io.hpp"
#include "json_output.hpp"
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

// What a handler does with a delivery, apart from the quota bookkeeping.
class MessageSink {
  public:
    MessageSink(const ConsumeArgs& args, std::vector<std::string> command, RunControl& control)
        : args_(args), command_(std::move(command)), control_(control) {}

    Outcome handle(const Delivery& d) { return command_.empty() ? print(d) : run(d); }

  private:
    Outcome print(const Delivery& d) {
        std::string out;
        if (args_.raw) {
            out = d.payload();
        } else {
            Json j;
            j["id"] = d.id();
            put_payload(j, d.payload());
            j["attempt"] = d.attempt();
            j["due_ms"] = unix_ms(d.due());
            j["delivered_ms"] = unix_ms(d.delivered_at());
            out = to_line(j) + "\n";
        }
        bool ok = false;
        {
            std::lock_guard lock(output_mutex_);
            ok = write_all(STDOUT_FILENO, out);
        }
        if (ok) return Ack{};
        // Whoever reads our output is gone: the message was not passed on, so it stays queued.
        control_.request_stop();
        return Nack{.delay = Duration(0), .error = "delayq consume could not write to stdout"};
    }

    Outcome run(const Delivery& d) {
        const CommandResult r = run_command(command_, d.payload(),
                                            {"DELAYQ_QUEUE=" + d.queue(), "DELAYQ_ID=" + d.id(),
                                             "DELAYQ_ATTEMPT=" + std::to_string(d.attempt()),
                                             "DELAYQ_DUE_MS=" + std::to_string(unix_ms(d.due()))});
        if (r.succeeded()) return Ack{};
        std::fprintf(stderr, "delayq: message %s, attempt %d of %d: %s; %s\n", d.id().c_str(),
                     d.attempt(), d.max_attempts(), r.headline().c_str(),
                     d.attempt() < d.max_attempts() ? "it will be retried" : "no attempts left");
        std::string error = r.describe();
        return Nack{.error = std::move(error)};
    }

    const ConsumeArgs& args_;
    std::vector<std::string> command_;
    RunControl& control_;
    std::mutex output_mutex_;
};

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
    ConsumerOptions options;
    // Never more handlers than messages wanted: see RunControl.
    options.concurrency = max ? std::min(a.concurrency, *max) : a.concurrency;
    // With --max, lease no message beyond the handlers: one leased and then handed back at the
    // end would still count as delivered.
    if (max) options.prefetch = 0;
    if (a.visibility_opt->count() > 0) {
        options.visibility_timeout = duration_arg(a.visibility);
        if (options.visibility_timeout.count() < 1) {
            throw UsageError("--visibility must be at least 1ms");
        }
    }
    options.on_dead_letter = [](const DeadLetterEvent& e) {
        std::fprintf(stderr,
                     "delayq: message %s moved to the dead letters (%s after %d attempts)\n",
                     e.id.c_str(), e.reason.c_str(), e.attempts);
    };

    Session session(a.redis);
    Leases leases = session.leases(a.queue);
    session.connect();

    RunControl control(max, options.concurrency, timeout);
    MessageSink sink(a, trailing.argv, control);
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
            return sink.handle(d);
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
