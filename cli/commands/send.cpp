// delayq send: one message from an argument or stdin, or JSON lines in batches.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <delayq/error.hpp>
#include <delayq/limits.hpp>
#include <delayq/validate.hpp>
#include <memory>
#include <optional>

#include "command_set.hpp"
#include "errors.hpp"
#include "io.hpp"
#include "message_lines.hpp"
#include "progress.hpp"
#include "session.hpp"
#include "time_text.hpp"

namespace delayq::cli {
namespace {

// How long after the clock was read the last batch of a --file may still go out.
constexpr auto kSendingMargin = std::chrono::hours(1);

struct SendArgs {
    std::string queue;
    std::string payload;
    std::string delay;
    std::string at;
    std::string id;
    int max_attempts = 0;
    std::string expire_after;
    std::string file;
    int wait_replicas = 0;
    std::string wait_timeout;
    CLI::Option* payload_opt = nullptr;
    CLI::Option* delay_opt = nullptr;
    CLI::Option* at_opt = nullptr;
    CLI::Option* expire_opt = nullptr;
    CLI::Option* file_opt = nullptr;
    CLI::Option* id_opt = nullptr;
    CLI::Option* wait_replicas_opt = nullptr;
    CLI::Option* wait_timeout_opt = nullptr;
};

// --wait-replicas and --wait-timeout as the queue handle's durability. A timeout of 0 or none
// with replicas is refused here, before anything is sent: WAIT 0 would block forever.
Durability durability_from(const SendArgs& a) {
    Durability d;
    if (a.wait_timeout_opt->count() > 0) {
        if (a.wait_replicas_opt->count() == 0) {
            throw UsageError("--wait-timeout needs --wait-replicas");
        }
        d.timeout = duration_arg(a.wait_timeout);
        if (d.timeout > kMaxWaitTimeout) {
            throw UsageError("--wait-timeout must be at most " +
                             std::to_string(kMaxWaitTimeout.count() / 1000) + "s");
        }
    }
    d.replicas = a.wait_replicas;
    if (d.replicas > 0 && d.timeout.count() == 0) {
        throw UsageError(
            "--wait-replicas needs a --wait-timeout of more than 0 (WAIT 0 waits "
            "forever)");
    }
    validate_durability(d);
    return d;
}

Queue queue_of(Session& session, const SendArgs& a) {
    return session.client().queue(a.queue, QueueOptions{.durability = durability_from(a)});
}

// The library's text (the counts, and the first ids) and then every id: the ids a retry must
// reuse to stay idempotent, one line a script can take.
std::string not_replicated_text(const DurabilityError& e) {
    std::string text = std::string(e.what()) + "\nids:";
    for (const std::string& id : e.ids()) text += " " + id;
    return text;
}

SendOptions options_from(const SendArgs& a) {
    SendOptions o;
    if (a.delay_opt->count() > 0) o.delay = duration_arg(a.delay);
    if (a.at_opt->count() > 0) o.at = time_arg(a.at);
    if (a.expire_opt->count() > 0) o.expire_after = duration_arg(a.expire_after);
    // Given, even empty, it is an id: an empty one is refused rather than generated.
    if (a.id_opt->count() > 0) o.id = a.id;
    o.max_attempts = a.max_attempts;
    return o;
}

int send_one(const SendArgs& a, const Invocation& invocation) {
    SendOptions options = options_from(a);
    Session session(invocation);
    Queue queue = queue_of(session, a);
    Message message;
    if (a.payload_opt->count() > 0) {
        message.payload = a.payload;
    } else {
        if (is_terminal(0)) {
            std::fprintf(stderr, "delayq: reading the payload from stdin (end it with Ctrl-D)\n");
        }
        message.payload = read_input("-");
    }
    message.options = options;
    validate_message(message.payload, message.options);
    session.connect();
    SendResult r;
    try {
        r = queue.send(message.payload, message.options);
    } catch (const DurabilityError& e) {
        throw RuntimeFailure(not_replicated_text(e));
    }
    std::printf("%s\n", r.id.c_str());
    if (r.duplicate) {
        std::fprintf(stderr,
                     "delayq: duplicate: queue %s already holds a message with id %s (due %s); "
                     "nothing was changed\n",
                     a.queue.c_str(), r.id.c_str(), format_time(r.due).c_str());
    }
    return kExitOk;
}

int send_file(const SendArgs& a, const Invocation& invocation) {
    if (a.payload_opt->count() > 0) throw UsageError("give either PAYLOAD or --file, not both");
    if (a.id_opt->count() > 0) {
        throw UsageError("--id cannot be used with --file: give each line an \"id\" instead");
    }
    SendOptions defaults = options_from(a);
    Session session(invocation);
    Queue queue = queue_of(session, a);
    const std::string input = read_input(a.file);
    std::vector<MessageLine> lines = parse_message_lines(input, defaults, QueueOptions{});
    session.connect();
    // Every line is checked before the first is sent: the checks against the server's clock
    // too, with the clock read once. The batches go out over some time after it, and a later
    // send moves a delay's due time later: so the due times are checked as if sent an hour on.
    check_due_times(lines, session.client().server_time() + kSendingMargin);

    // A bar only for more than one batch: less is over too soon to need one.
    std::optional<Progress> progress;
    if (lines.size() > kMaxBatch) progress.emplace("sent", lines.size());
    std::size_t sent = 0;
    std::size_t duplicates = 0;
    std::size_t batches = 0;
    std::vector<Message> batch;
    for (std::size_t start = 0; start < lines.size(); start += kMaxBatch) {
        const std::size_t end = std::min(lines.size(), start + kMaxBatch);
        batch.clear();
        for (std::size_t i = start; i < end; ++i) batch.push_back(lines[i].message);
        std::vector<SendResult> results;
        try {
            results = queue.send_batch(batch);
        } catch (const DurabilityError& e) {
            const std::string before =
                sent == 0 ? std::string("nothing confirmed before")
                          : "lines 1-" + std::to_string(lines[start - 1].line) + " (" +
                                std::to_string(sent) + " messages) confirmed";
            throw RuntimeFailure(
                "stopped: " + before + "; lines " + std::to_string(lines[start].line) + "-" +
                std::to_string(lines[end - 1].line) + " not replicated: " + not_replicated_text(e));
        } catch (const Error& e) {
            if (sent == 0) throw;  // nothing written: the error's own exit status applies
            throw RuntimeFailure("stopped after sending the messages of lines 1-" +
                                 std::to_string(lines[start - 1].line) + " (" +
                                 std::to_string(sent) + " messages): " + e.what());
        }
        ++batches;
        sent += results.size();
        duplicates += static_cast<std::size_t>(std::count_if(
            results.begin(), results.end(), [](const SendResult& r) { return r.duplicate; }));
        if (progress) progress->advance(results.size());
    }
    progress.reset();  // its line cleared before the summary takes it
    std::printf("sent %zu messages in %zu batch%s: %zu new, %zu duplicate%s\n", sent, batches,
                batches == 1 ? "" : "es", sent - duplicates, duplicates,
                duplicates == 1 ? "" : "s");
    return kExitOk;
}

}  // namespace

void add_send(CommandSet& set) {
    auto a = std::make_shared<SendArgs>();
    CLI::App& cmd = set.add(
        {.path = "send",
         .summary = "Send a message, due after a delay or at a time",
         .details = R"(Prints the message id. A duplicate id prints the id and says so on stderr.

JSON lines for --file (options given on the command line are defaults for every line):
  {"payload": "close order 42", "delay": "30m", "id": "order-42"}
  {"payload_base64": "AAEC/w==", "at": "2030-01-02T03:04:05Z", "max_attempts": 3}
Every line is checked before any is sent: a bad line sends nothing (exit 2, its line number
in the message). More than one batch shows a progress bar on stderr when it is a terminal.

With --wait-replicas N, each send (each batch of --file) waits until N replicas have it, for at
most --wait-timeout (Redis's WAIT). Fewer in time exits 1 naming the counts and every id of the
send: the messages are stored, but may not survive a failover of the primary; sending again
with those ids is idempotent. docs/reliability.md says what this promises.

Examples:
  delayq send orders 'close order 42' --delay 30m --id order-42
  delayq send reminders --at 2030-01-02T09:00:00+01:00 < reminder.json
  delayq send images --delay 5s < thumbnail.png
  delayq send orders --file orders.jsonl
  delayq send orders 'close order 42' --id order-42 --wait-replicas 1 --wait-timeout 500ms)"},
        [a](const Invocation& i) {
            return a->file_opt->count() > 0 ? send_file(*a, i) : send_one(*a, i);
        });
    cmd.add_option("QUEUE", a->queue, "Queue name")->required();
    a->payload_opt =
        cmd.add_option("PAYLOAD", a->payload, "The message (default: all of stdin, binary-safe)");
    a->delay_opt = cmd.add_option("--delay", a->delay, "Due after this long: 250ms, 30s, 1h30m, 7d")
                       ->type_name("DUR");
    a->at_opt = cmd.add_option("--at", a->at,
                               "Due at this time: RFC 3339 (2030-01-02T03:04:05Z) or unix ms")
                    ->type_name("TIME");
    a->delay_opt->excludes(a->at_opt);
    a->id_opt =
        cmd.add_option("--id", a->id,
                       "Message id, an idempotency key: sending an id that exists changes nothing")
            ->type_name("ID");
    // Absent means the queue's setting.
    cmd.add_option("--max-attempts", a->max_attempts,
                   "Deliveries before it is dead-lettered (default: the queue's, " +
                       std::to_string(kDefaultMaxAttempts) + " unless set)")
        ->type_name("N")
        ->check(CLI::Range(1, kMaxAttempts));
    a->expire_opt = cmd.add_option("--expire-after", a->expire_after,
                                   "No longer deliver it from this long after the send: it is "
                                   "then dead-lettered as expired (a delivery under way may "
                                   "still be acked)")
                        ->type_name("DUR");
    a->file_opt = cmd.add_option("--file", a->file,
                                 "Send JSON lines from this file (-: stdin), one message per "
                                 "line, in batches of " +
                                     std::to_string(kMaxBatch))
                      ->type_name("FILE");
    a->wait_replicas_opt =
        cmd.add_option("--wait-replicas", a->wait_replicas,
                       "Replicas that must confirm the send (WAIT); fewer in time exits 1 with "
                       "the ids (default: 0, none)")
            ->type_name("N")
            ->check(CLI::Range(0, kMaxWaitReplicas));
    a->wait_timeout_opt = cmd.add_option("--wait-timeout", a->wait_timeout,
                                         "How long to wait for them: more than 0, at most " +
                                             std::to_string(kMaxWaitTimeout.count() / 1000) +
                                             "s; required with --wait-replicas")
                              ->type_name("DUR");
}

}  // namespace delayq::cli
