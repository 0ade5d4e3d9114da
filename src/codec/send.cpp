#include "codec/send.hpp"

#include <optional>
#include <string>

#include "codec/common.hpp"
#include "delayq/error.hpp"
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
};

RunOptions run_options(const MessageRef& m, const Defaults& defaults) {
    validate_payload(m.payload, defaults.max_payload_bytes);
    validate_send(*m.options);
    const SendOptions& o = *m.options;
    const std::int64_t expire_after_ms = o.expire_after.count();
    return RunOptions{o.at ? std::optional(validate_time(*o.at, "due time")) : std::nullopt,
                      static_cast<std::int64_t>(o.delay.count()),
                      // 0: the queue's setting, looked up when it matters (send.lua).
                      o.max_attempts, expire_after_ms,
                      // Only a generated id without expiry has a record built here.
                      o.id.has_value() || expire_after_ms > 0};
}

// send.lua's reply: the first sequence number of the call, each run's due time, then for each
// message with a caller's id, in order, -1 when it was stored or the due time of the message
// that already holds the id.
constexpr std::size_t kFirstSequence = 0;
constexpr std::size_t kRunDues = 1;

}  // namespace

Call encode(std::span<const MessageRef> messages, const Defaults& defaults) {
    if (messages.empty() || messages.size() > kMaxBatch) {
        throw InvalidArgument("a batch holds 1 to " + std::to_string(kMaxBatch) + " messages");
    }
    Call call;
    std::size_t next = 0;
    while (next < messages.size()) {
        // Consecutive messages with equal options form one run, which states them once.
        const RunOptions run = run_options(messages[next], defaults);
        std::size_t end = next + 1;
        while (end < messages.size() && run_options(messages[end], defaults) == run) ++end;
        call.args.add(static_cast<std::int64_t>(end - next));
        call.args.add(std::string_view(run.with_ids ? "1" : "0"));
        if (run.at_ms) {
            call.args.add(*run.at_ms);
        } else {
            call.args.add(std::string_view{});
        }
        call.args.add(run.delay_ms);
        call.args.add(static_cast<std::int64_t>(run.max_attempts));
        call.args.add(run.expire_after_ms);
        for (; next < end; ++next) {
            const std::optional<std::string>& id = messages[next].options->id;
            if (run.with_ids) {
                // A run with ids but a generated one (an expiry): '' asks the script for one.
                call.args.add(id ? std::string_view(*id) : std::string_view{});
                call.args.add(messages[next].payload);
            } else {
                call.args.add_owned(short_record(run.max_attempts, messages[next].payload));
            }
        }
        call.run_ends.push_back(end);
    }
    return call;
}

std::vector<SendResult> decode(const Reply& reply, std::span<const MessageRef> messages,
                               const Call& call) {
    const auto& flat = reply.as_array();
    const std::size_t runs = call.run_ends.size();
    if (flat.size() < kRunDues + runs) throw ServerError("send: malformed reply");
    const auto first = static_cast<std::uint64_t>(flat[kFirstSequence].as_int());
    std::size_t next_value = kRunDues + runs;  // the answers for caller ids follow
    std::vector<SendResult> out;
    out.reserve(messages.size());
    std::size_t run = 0;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        while (i >= call.run_ends.at(run)) ++run;
        const TimePoint run_due = unix_ms(flat[kRunDues + run].as_int());
        const std::optional<std::string>& id = messages[i].options->id;
        if (!id) {
            out.push_back(SendResult{sequence_key(first + i), false, run_due});
            continue;
        }
        if (next_value >= flat.size()) throw ServerError("send: malformed reply");
        const std::int64_t held = flat[next_value++].as_int();
        out.push_back(held < 0 ? SendResult{*id, false, run_due}
                               : SendResult{*id, true, unix_ms(held)});
    }
    if (next_value != flat.size()) throw ServerError("send: malformed reply");
    return out;
}

bool script_may_refuse(const SendOptions& o) {
    return (o.at && o.expire_after.count() > 0) || o.delay.count() > kMaxTimeMs / 2;
}

}  // namespace delayq::detail::send_codec
