#include "consumer/context.hpp"

#include "delayq/error.hpp"
#include "log.hpp"
#include "validate.hpp"

namespace delayq::detail {

ConsumerContext::ConsumerContext(std::shared_ptr<QueueCore> queue_core, Handler h,
                                 ConsumerOptions o)
    : core(std::move(queue_core)), handler(std::move(h)), options(std::move(o)) {
    if (!handler) throw InvalidArgument("a consumer needs a handler");
    detail::validate_consumer_options(options);
}

void report_dead_letter(ConsumerContext& context, const DeadLetterEvent& event) {
    context.counters.dead_lettered.fetch_add(1, std::memory_order_relaxed);
    if (!context.options.on_dead_letter) return;
    try {
        context.options.on_dead_letter(event);
    } catch (const std::exception& e) {
        log().error("queue {}: on_dead_letter hook threw: {}", context.core->name(), e.what());
    } catch (...) {
        log().error("queue {}: on_dead_letter hook threw", context.core->name());
    }
}

}  // namespace delayq::detail
