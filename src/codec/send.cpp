#include "codec/send.hpp"

#include <optional>
#include <string>

#include "codec/common.hpp"
#include "delayq/error.hpp"
#include "delayq/validate.hpp"
#include "keys.hpp"
#include "record.hpp"
#include "validate.hpp"

namespace delayq::detail::send_codec {
namespace {

// The options a run of messages states once (send.lua).
struct RunOptions {
    std::optional<std::int64_t> at_ms;
    std::int64_t delay_ms = 0;
    int max_attempts = 0;
    std::int64_t expire_after_ms = 0;
    bool with_ids = false;
    bool operator==(const RunOptions&) const = default;

    // Whether a message with these options may join a run whose messages each state their own
    // due time (send.lua): the same options but the due time, given the same way.
    [[nodiscard]] bool differs_only_in_due(const RunOptions& o) const {
        return at_ms.has_value() == o.at_ms.has_value() && max_attempts == o.max_attempts &&
               expire_after_ms == o.expire_after_ms && with_ids == o.with_ids;
    }
};

RunOptions run_options(const MessageRef& m, const Defaults& defaults) {
    validate_message(m.payload, *m.options,
                     QueueOptions{.max_payload_bytes = defaults.max_payload_bytes});
    const SendOptions& o = *m.options;
    const std::int64_t expire_after_ms = o.expire_after.count();
    return RunOptions{o.at ? std::optional(validate_time(*o.at, "due time")) : std::nullopt,
                      static_cast<std::int64_t>(o.delay.count()),
                      // 0: the queue's setting, looked up when it matters (send.lua).
                      o.max_attempts, expire_after_ms,
                      // Only a generated id without expiry has a record built here.
                      o.id.has_value() || expire_after_ms > 0};
}

// The value a message states in a run with a due time per message: its due time or its delay.
std::int64_t run_due_value(const RunOptions& o) { return o.at_ms ? *o.at_ms : o.delay_ms; }

// send.lua's reply: the first sequence number of the call, each run's due time (of a run with a
// due time per message: the server's now), then for each message with a caller's id, in order,
// -1 when it was stored or the due time of the message that already holds the id.
constexpr std::size_t kFirstSequence = 0;
constexpr std::size_t kRunDues = 1;

}  // namespace

Call encode(std::span<const MessageRef> messages, const Defaults& defaults) {
    if (messages.empty() || messages.size() > kMaxBatch) {
        throw InvalidArgument("a batch holds 1 to " + std::to_string(kMaxBatch) + " messages");
    }
    std::vector<RunOptions> options;
    options.reserve(messages.size());
    for (std::size_t i = 0; i < messages.size(); ++i) {
        try {
            options.push_back(run_options(messages[i], defaults));
        } catch (const InvalidArgument& e) {
            // In a batch, say which message: the caller cannot tell otherwise.
            if (messages.size() == 1) throw;
            throw InvalidArgument("messages[" + std::to_string(i) + "]: " + e.what());
        }
    }
    Call call;
    std::size_t next = 0;
    while (next < messages.size()) {
        // Consecutive messages with equal options form one run, which states them once; those
        // that differ only in their due times form one that states a due time per message.
        const RunOptions& run = options[next];
        std::size_t end = next + 1;
        while (end < messages.size() && options[end] == run) ++end;
        const bool own_due =
            end == next + 1 && end < messages.size() && run.differs_only_in_due(options[end]);
        if (own_due) {
            while (end < messages.size() && run.differs_only_in_due(options[end])) ++end;
        }
        call.args.add(static_cast<std::int64_t>(end - next));
        call.args.add(std::string_view(run.with_ids ? "1" : "0"));
        if (own_due) {
            call.args.add(std::string_view(run.at_ms ? "*" : ""));
            call.args.add(std::string_view(run.at_ms ? "" : "*"));
        } else {
            if (run.at_ms) {
                call.args.add(*run.at_ms);
            } else {
                call.args.add(std::string_view{});
            }
            call.args.add(run.delay_ms);
        }
        call.args.add(static_cast<std::int64_t>(run.max_attempts));
        call.args.add(run.expire_after_ms);
        for (; next < end; ++next) {
            if (own_due) call.args.add(run_due_value(options[next]));
            const std::optional<std::string>& id = messages[next].options->id;
            if (run.with_ids) {
                // A run with ids but a generated one (an expiry): '' asks the script for one.
                call.args.add(id ? std::string_view(*id) : std::string_view{});
                call.args.add(messages[next].payload);
            } else {
                call.args.add_owned(short_record(run.max_attempts, messages[next].payload));
            }
        }
        call.runs.push_back(Call::Run{end, own_due});
    }
    return call;
}

std::vector<SendResult> decode(const Reply& reply, std::span<const MessageRef> messages,
                               const Call& call) {
    const auto& flat = reply.as_array();
    const std::size_t runs = call.runs.size();
    if (flat.size() < kRunDues + runs) throw ServerError("send: malformed reply");
    const auto first = static_cast<std::uint64_t>(flat[kFirstSequence].as_int());
    std::size_t next_value = kRunDues + runs;  // the answers for caller ids follow
    std::vector<SendResult> out;
    out.reserve(messages.size());
    std::size_t run = 0;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        while (i >= call.runs.at(run).end) ++run;
        const std::int64_t run_value = flat[kRunDues + run].as_int();
        const SendOptions& o = *messages[i].options;
        // A run with a due time per message answers the now its delays count from.
        const TimePoint due = !call.runs[run].own_due ? unix_ms(run_value)
                              : o.at                  ? *o.at
                                                      : unix_ms(run_value + o.delay.count());
        if (!o.id) {
            out.push_back(SendResult{sequence_key(first + i), false, due});
            continue;
        }
        if (next_value >= flat.size()) throw ServerError("send: malformed reply");
        const std::int64_t held = flat[next_value++].as_int();
        out.push_back(held < 0 ? SendResult{*o.id, false, due}
                               : SendResult{*o.id, true, unix_ms(held)});
    }
    if (next_value != flat.size()) throw ServerError("send: malformed reply");
    return out;
}

bool script_may_refuse(const SendOptions& o) {
    return (o.at && o.expire_after.count() > 0) || o.delay.count() > kMaxTimeMs / 2;
}

}  // namespace delayq::detail::send_codec
