#include "delayq/queue.hpp"

#include "delayq/error.hpp"
#include "delayq/validate.hpp"
#include "queue_core.hpp"
#include "send_durability.hpp"
#include "validate.hpp"

namespace delayq {

Queue::Queue(std::shared_ptr<detail::QueueCore> core) : core_(std::move(core)) {}

const std::string& Queue::name() const { return core_->name(); }

namespace {

// Whether a message of `core`'s line needs an id from the client (detail::durable_id): a durable
// line's messages sent without one.
bool needs_id(const detail::QueueCore& core, const SendOptions& options) {
    return !options.id && detail::is_durable(core.options().durability);
}

SendOptions with_id(const SendOptions& options) {
    SendOptions named = options;
    named.id = detail::durable_id();
    return named;
}

}  // namespace

SendResult Queue::send(std::string_view payload, const SendOptions& options) {
    validate_message(payload, options, core_->options());
    if (needs_id(*core_, options)) return core_->coalescer().send(payload, with_id(options));
    return core_->coalescer().send(payload, options);
}

std::future<SendResult> Queue::send_async(std::string_view payload, const SendOptions& options) {
    validate_message(payload, options, core_->options());
    if (needs_id(*core_, options)) return core_->coalescer().send_async(payload, with_id(options));
    return core_->coalescer().send_async(payload, options);
}

void Queue::send_async(std::string_view payload, const SendOptions& options, SendCallback done) {
    if (!done) throw InvalidArgument("send_async needs a callback");
    validate_message(payload, options, core_->options());
    if (needs_id(*core_, options)) {
        core_->coalescer().send_async(payload, with_id(options), std::move(done));
        return;
    }
    core_->coalescer().send_async(payload, options, std::move(done));
}

std::vector<SendResult> Queue::send_batch(std::span<const Message> messages) {
    if (messages.empty()) return {};
    std::vector<detail::send_codec::MessageRef> refs;
    refs.reserve(messages.size());
    // A durable line's messages without ids get theirs here (reserved: refs point into it).
    std::vector<SendOptions> named;
    if (!detail::is_durable(core_->options().durability)) {
        for (const Message& m : messages) refs.push_back({m.payload, &m.options});
    } else {
        named.reserve(messages.size());
        for (const Message& m : messages) {
            refs.push_back(
                {m.payload, m.options.id ? &m.options : &named.emplace_back(with_id(m.options))});
        }
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
