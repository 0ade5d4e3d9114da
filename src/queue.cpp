#include "delayq/queue.hpp"

#include "delayq/error.hpp"
#include "delayq/validate.hpp"
#include "queue_core.hpp"
#include "validate.hpp"

namespace delayq {

Queue::Queue(std::shared_ptr<detail::QueueCore> core) : core_(std::move(core)) {}

const std::string& Queue::name() const { return core_->name(); }

SendResult Queue::send(std::string_view payload, const SendOptions& options) {
    validate_message(payload, options, core_->options());
    return core_->coalescer().send(payload, options);
}

std::future<SendResult> Queue::send_async(std::string_view payload, const SendOptions& options) {
    validate_message(payload, options, core_->options());
    return core_->coalescer().send_async(payload, options);
}

void Queue::send_async(std::string_view payload, const SendOptions& options, SendCallback done) {
    if (!done) throw InvalidArgument("send_async needs a callback");
    validate_message(payload, options, core_->options());
    core_->coalescer().send_async(payload, options, std::move(done));
}

std::vector<SendResult> Queue::send_batch(std::span<const Message> messages) {
    if (messages.empty()) return {};
    std::vector<detail::send_codec::MessageRef> refs;
    refs.reserve(messages.size());
    for (const Message& m : messages) refs.push_back({m.payload, &m.options});
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
