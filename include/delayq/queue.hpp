#pragma once

#include <cstddef>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "delayq/delivery.hpp"
#include "delayq/options.hpp"
#include "delayq/types.hpp"

namespace delayq {

namespace detail {
class QueueCore;
}

// The messages leased by one fetch, and when calling again is worthwhile.
struct FetchResult {
    std::vector<Delivery> deliveries;
    TimePoint now;                               // Redis time of the fetch
    std::optional<TimePoint> next;               // next due time or lease deadline; none when idle
    std::vector<DeadLetterEvent> dead_lettered;  // moved to the dead-letter set by this fetch
};

// One named queue. Cheap to copy; thread-safe. Every state change is one atomic Lua script run
// on the Redis server, timed by the server's clock.
class Queue {
  public:
    const std::string& name() const;

    SendResult send(std::string_view payload, const SendOptions& options = {});
    // send without waiting, so that one thread can keep many single sends in flight. Payload
    // and options are copied. Bad input throws InvalidArgument here and queues nothing. The
    // future holds the result, or what send would have thrown (ConnectionError, TimeoutError,
    // OutOfMemoryError, ServerError, or InvalidArgument from the script's own checks).
    // Order: the messages sent through one Queue (copies of a Queue from Client::queue() share
    // one line, send() callers included) go to Redis in the order they were queued, so one
    // thread's messages keep its order. They share script calls with other sends; a thread of
    // the Queue's own, started by the first send_async, makes the calls (docs/design.md).
    // Closing: the destructor of the last copy of the Queue (a Consumer holds one too) waits
    // until every queued message has been sent and answered; should a call fail then, the same
    // error answers every message still queued, so closing takes about one timeout, not one
    // per batch. Every future gets a value or an error. Destroying the Client changes nothing:
    // a Queue keeps the connections it needs.
    std::future<SendResult> send_async(std::string_view payload, const SendOptions& options = {});
    // Up to 1000 messages in one round trip and one atomic script: all are stored or (on bad
    // input or a Redis error) none is. An empty batch sends nothing and returns no results.
    std::vector<SendResult> send_batch(std::span<const Message> messages);

    CancelResult cancel(std::string_view id);
    RescheduleResult reschedule(std::string_view id, Duration delay);
    RescheduleResult reschedule_at(std::string_view id, std::chrono::system_clock::time_point at);

    std::optional<MessageInfo> get(std::string_view id);
    QueueStats stats();
    // Messages of one state in the order they leave it (due time, lease deadline, age).
    std::vector<MessageInfo> list(State state, Page page = {});

    // Dead letters back to pending, due now, with fresh attempts and no expiry. Returns how many
    // were moved; ids that are not dead letters are skipped.
    std::size_t requeue_dead(std::span<const std::string> ids);
    std::size_t requeue_all_dead();
    std::size_t purge_dead(std::span<const std::string> ids);
    std::size_t purge_all_dead();

    // Low-level consumption; Consumer is built on these.
    FetchResult fetch(std::size_t max_count, Duration visibility);
    AckResult ack(const Delivery& delivery);
    // Acks up to 1000 deliveries in one script call; one result per delivery, in order. A
    // delivery named twice is acked once: the second reports kLeaseLost.
    std::vector<AckResult> ack(std::span<const Delivery> deliveries);
    // Without Nack::delay, the delay is Backoff{}'s (a Consumer uses its own Backoff).
    NackResult nack(const Delivery& delivery, const Nack& nack);
    NackResult reject(const Delivery& delivery, const Reject& reject);
    // Renews the lease for `visibility` from now; nullopt when the lease is lost.
    std::optional<TimePoint> extend(const Delivery& delivery, Duration visibility);
    // Hands an unstarted delivery back at its due time, without counting the attempt.
    bool release(const Delivery& delivery);

    const QueueOptions& options() const;

  private:
    friend class Client;
    friend class Consumer;
    explicit Queue(std::shared_ptr<detail::QueueCore> core);
    std::shared_ptr<detail::QueueCore> core_;
};

}  // namespace delayq
