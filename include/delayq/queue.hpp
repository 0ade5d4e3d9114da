#pragma once

#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "delayq/options.hpp"
#include "delayq/types.hpp"

namespace delayq {

namespace detail {
class QueueCore;
}

// The answer to send_async with a callback: `error` is null and `result` holds the result, or
// `error` holds what send would have thrown.
using SendCallback = std::function<void(std::exception_ptr error, SendResult result)>;

// A queue as its producers see it: sending, and changing what was sent before it is delivered.
// Cheap to copy; thread-safe. Every state change is one atomic Lua script run on the Redis
// server, timed by the server's clock. Operators use QueueAdmin, consumers Leases or Consumer.
class Queue {
  public:
    const std::string& name() const;

    // With QueueOptions::durability, a message without an id gets one made by the client, and
    // too few replicas in time throw DurabilityError (the message is stored all the same).
    SendResult send(std::string_view payload, const SendOptions& options = {});
    // send without waiting, so that one thread can keep many single sends in flight. Payload
    // and options are copied. Bad input throws InvalidArgument here and queues nothing. The
    // future holds the result, or what send would have thrown (ConnectionError, TimeoutError,
    // OutOfMemoryError, ServerError, InvalidArgument from the script's own checks, or, for a
    // handle with QueueOptions::durability, DurabilityError with this message's id).
    // Order: the messages sent through one Queue (copies of a Queue from Client::queue() share
    // one line, send() callers included) go to Redis in the order they were queued, so one
    // thread's messages keep its order. They share script calls with other sends; the Client's
    // sending thread, one for all its queues and started by its first send_async, makes the
    // calls, the queues with sends queued taking turns (docs/design.md).
    // Closing: the destructor of the last copy of the Queue waits until every queued message
    // has been sent and answered; should a call fail then, the same error answers every
    // message still queued, so closing takes about one timeout, not one per batch. Every
    // future gets a value or an error. Destroying the Client changes nothing: a Queue keeps the
    // connections it needs.
    std::future<SendResult> send_async(std::string_view payload, const SendOptions& options = {});
    // The same, answered through `done` instead of a future, for event loops that cannot block
    // on one. `done` runs on the Client's sending thread, once per message: it must be quick (it
    // holds up the sends of every queue of the Client), must not send through the Client and
    // wait, and must not destroy the last copy of a Queue that has sends queued, which would
    // wait for the thread it runs on (detected: logged, then abort). An exception it throws is
    // logged and dropped.
    void send_async(std::string_view payload, const SendOptions& options, SendCallback done);
    // Up to kMaxBatch messages in one round trip and one atomic script: all are stored or (on bad
    // input or a Redis error) none is. An empty batch sends nothing and returns no results. A
    // durable handle's DurabilityError names every message's id, in order.
    std::vector<SendResult> send_batch(std::span<const Message> messages);

    // A message not yet delivered: deleted. In flight or dead, it is left as it is.
    CancelResult cancel(std::string_view id);
    // A message not yet delivered: due `delay` from now by the Redis clock, or at `at` (1970 to
    // the end of the year 9999, else InvalidArgument).
    RescheduleResult reschedule(std::string_view id, Duration delay);
    RescheduleResult reschedule_at(std::string_view id, TimePoint at);

  private:
    friend class Client;
    explicit Queue(std::shared_ptr<detail::QueueCore> core);
    std::shared_ptr<detail::QueueCore> core_;
};

}  // namespace delayq
