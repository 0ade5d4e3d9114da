#include "delayq/queue.hpp"

#include <limits>
#include <random>

#include "delayq/error.hpp"
#include "queue_core.hpp"
#include "validate.hpp"

namespace delayq {
namespace {

detail::LeaseRef lease_of(const Delivery& d) { return detail::LeaseRef{d.id(), d.token()}; }

// Applies a dead-letter script to every id, or to all dead letters, in bounded chunks.
template <typename Fn>
std::size_t over_dead_letters(std::span<const std::string> ids, bool all, Fn&& call) {
    std::size_t moved = 0;
    if (all) {
        // Until the set is empty or a call makes no progress (orphans removed count as progress).
        std::size_t before = std::numeric_limits<std::size_t>::max();
        for (;;) {
            auto [n, left] = call(std::span<const std::string>{}, detail::kMaxBatch);
            moved += n;
            if (left == 0 || left >= before) return moved;
            before = left;
        }
    }
    for (std::size_t i = 0; i < ids.size(); i += detail::kMaxBatch) {
        auto chunk = ids.subspan(i, std::min(detail::kMaxBatch, ids.size() - i));
        moved += call(chunk, chunk.size()).first;
    }
    return moved;
}

}  // namespace

Queue::Queue(std::shared_ptr<detail::QueueCore> core) : core_(std::move(core)) {}

const std::string& Queue::name() const { return core_->name(); }

const QueueOptions& Queue::options() const { return core_->options(); }

SendResult Queue::send(std::string_view payload, const SendOptions& options) {
    detail::validate_payload(payload, core_->options().max_payload_bytes);
    detail::validate_send(options);
    return core_->coalescer().send(payload, options);
}

std::future<SendResult> Queue::send_async(std::string_view payload, const SendOptions& options) {
    detail::validate_payload(payload, core_->options().max_payload_bytes);
    detail::validate_send(options);
    return core_->coalescer().send_async(payload, options);
}

std::vector<SendResult> Queue::send_batch(std::span<const Message> messages) {
    if (messages.empty()) return {};
    std::vector<detail::MessageRef> refs;
    refs.reserve(messages.size());
    for (const Message& m : messages) refs.push_back(detail::MessageRef{m.payload, &m.options});
    auto conn = core_->client().pool().acquire();
    return core_->send(*conn, refs);
}

CancelResult Queue::cancel(std::string_view id) {
    auto conn = core_->client().pool().acquire();
    return core_->cancel(*conn, id);
}

RescheduleResult Queue::reschedule(std::string_view id, Duration delay) {
    std::int64_t delay_ms = detail::validate_delay(delay, "delay");
    auto conn = core_->client().pool().acquire();
    return core_->reschedule(*conn, id, std::nullopt, delay_ms);
}

RescheduleResult Queue::reschedule_at(std::string_view id,
                                      std::chrono::system_clock::time_point at) {
    std::int64_t at_ms = detail::validate_time(at, "due time");
    auto conn = core_->client().pool().acquire();
    return core_->reschedule(*conn, id, at_ms, 0);
}

std::optional<MessageInfo> Queue::get(std::string_view id) {
    auto conn = core_->client().pool().acquire();
    return core_->get(*conn, id);
}

QueueStats Queue::stats() {
    auto conn = core_->client().pool().acquire();
    return core_->stats(*conn);
}

std::vector<MessageInfo> Queue::list(State state, Page page) {
    auto conn = core_->client().pool().acquire();
    return core_->list(*conn, state, page);
}

std::size_t Queue::requeue_dead(std::span<const std::string> ids) {
    auto conn = core_->client().pool().acquire();
    return over_dead_letters(ids, false, [&](auto chunk, std::size_t limit) {
        return core_->dead_letters(*conn, detail::scripts::kDeadRequeue, chunk, limit);
    });
}

std::size_t Queue::requeue_all_dead() {
    auto conn = core_->client().pool().acquire();
    return over_dead_letters({}, true, [&](auto chunk, std::size_t limit) {
        return core_->dead_letters(*conn, detail::scripts::kDeadRequeue, chunk, limit);
    });
}

std::size_t Queue::purge_dead(std::span<const std::string> ids) {
    auto conn = core_->client().pool().acquire();
    return over_dead_letters(ids, false, [&](auto chunk, std::size_t limit) {
        return core_->dead_letters(*conn, detail::scripts::kDeadPurge, chunk, limit);
    });
}

std::size_t Queue::purge_all_dead() {
    auto conn = core_->client().pool().acquire();
    return over_dead_letters({}, true, [&](auto chunk, std::size_t limit) {
        return core_->dead_letters(*conn, detail::scripts::kDeadPurge, chunk, limit);
    });
}

FetchResult Queue::fetch(std::size_t max_count, Duration visibility) {
    auto conn = core_->client().pool().acquire();
    return core_->fetch(*conn, max_count, visibility);
}

AckResult Queue::ack(const Delivery& delivery) {
    auto conn = core_->client().pool().acquire();
    detail::LeaseRef lease = lease_of(delivery);
    return core_->ack(*conn, std::span(&lease, 1)).front();
}

std::vector<AckResult> Queue::ack(std::span<const Delivery> deliveries) {
    if (deliveries.empty()) return {};
    std::vector<detail::LeaseRef> leases;
    leases.reserve(deliveries.size());
    for (const Delivery& d : deliveries) leases.push_back(lease_of(d));
    auto conn = core_->client().pool().acquire();
    return core_->ack(*conn, leases);
}

NackResult Queue::nack(const Delivery& delivery, const Nack& nack) {
    Duration delay = nack.delay.value_or(Duration(0));
    if (!nack.delay) {
        thread_local std::mt19937_64 rng{std::random_device{}()};
        delay = Backoff{}.delay_for(delivery.attempt(),
                                    std::uniform_real_distribution<double>(0.0, 1.0)(rng));
    }
    auto conn = core_->client().pool().acquire();
    return core_->nack(*conn, lease_of(delivery), delay, nack.error, false);
}

NackResult Queue::reject(const Delivery& delivery, const Reject& reject) {
    auto conn = core_->client().pool().acquire();
    return core_->nack(*conn, lease_of(delivery), Duration(0), reject.error, true);
}

std::optional<TimePoint> Queue::extend(const Delivery& delivery, Duration visibility) {
    auto conn = core_->client().pool().acquire();
    detail::LeaseRef lease = lease_of(delivery);
    return core_->extend(*conn, std::span(&lease, 1), visibility).front();
}

bool Queue::release(const Delivery& delivery) {
    auto conn = core_->client().pool().acquire();
    detail::LeaseRef lease = lease_of(delivery);
    return core_->release(*conn, std::span(&lease, 1)).front();
}

}  // namespace delayq
