#include "delayq/queue.hpp"

#include <optional>

#include "delayq/error.hpp"
#include "delayq/validate.hpp"
#include "queue_core.hpp"
#include "send_durability.hpp"
#include "validate.hpp"

namespace delayq {

Queue::Queue(std::shared_ptr<detail::QueueCore> core) : core_(std::move(core)) {}

const std::string& Queue::name() const { return core_->name(); }

namespace {

// A durable line's message sent without an id goes with one from the client
// (detail::durable_id): `options` with it. Nothing, and no copy, for every other message.
std::optional<SendOptions> with_client_id(const detail::QueueCore& core,
                                          const SendOptions& options) {
    if (options.id || !detail::is_durable(core.options().durability)) return std::nullopt;
    SendOptions out = options;
    out.id = detail::durable_id();
    return out;
}

}  // namespace

SendResult Queue::send(std::string_view payload, const SendOptions& options) {
    validate_message(payload, options, core_->options());
    const std::optional<SendOptions> with_id = with_client_id(*core_, options);
    return core_->coalescer().send(payload, with_id ? *with_id : options);
}

std::future<SendResult> Queue::send_async(std::string_view payload, const SendOptions& options) {
    validate_message(payload, options, core_->options());
    const std::optional<SendOptions> with_id = with_client_id(*core_, options);
    return core_->coalescer().send_async(payload, with_id ? *with_id : options);
}

void Queue::send_async(std::string_view payload, const SendOptions& options, SendCallback done) {
    if (!done) throw InvalidArgument("send_async needs a callback");
    validate_message(payload, options, core_->options());
    const std::optional<SendOptions> with_id = with_client_id(*core_, options);
    core_->coalescer().send_async(payload, with_id ? *with_id : options, std::move(done));
}

std::vector<SendResult> Queue::send_batch(std::span<const Message> messages) {
    if (messages.empty()) return {};
    std::vector<detail::send_codec::MessageRef> refs;
    refs.reserve(messages.size());
    // A durable line's messages without ids get theirs here (reserved: refs point into it).
    std::vector<SendOptions> with_ids;
    if (detail::is_durable(core_->options().durability)) with_ids.reserve(messages.size());
    for (const Message& m : messages) {
        std::optional<SendOptions> with_id = with_client_id(*core_, m.options);
        refs.push_back(
            {m.payload, with_id ? &with_ids.emplace_back(std::move(*with_id)) : &m.options});
    }
    auto conn = core_->acquire();
    return core_->send(*conn, refs);
}

CancelResult Queue::cancel(std::string_view id) {
    auto conn = core_->acquire();
    return core_->cancel(*conn, id);
}

RescheduleResult Queue::reschedule(std::string_view id, Duration delay) {
    const std::int64_t delay_ms = detail::validate_delay(delay, "delay");
    auto conn = core_->acquire();
    return core_->reschedule(*conn, id, std::nullopt, delay_ms);
}

RescheduleResult Queue::reschedule_at(std::string_view id, TimePoint at) {
    const std::int64_t at_ms = detail::validate_time(at, "due time");
    auto conn = core_->acquire();
    return core_->reschedule(*conn, id, at_ms, 0);
}

}  // namespace delayq
