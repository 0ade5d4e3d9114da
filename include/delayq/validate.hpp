#pragma once

// The checks delayq makes of a message before it writes anything, for front ends that check a
// whole input (a file of messages, say) before sending any of it. The library runs these very
// functions in every send, so what passes here is refused by a send only for what a front end
// cannot know in advance: a queue's own payload limit aside, the Redis clock moving on (see
// validate_due).
#include <string_view>

#include "delayq/options.hpp"
#include "delayq/types.hpp"

namespace delayq {

// A queue name: 1..200 bytes of printable ASCII, without braces or spaces. Throws
// InvalidArgument naming the problem.
void validate_queue_name(std::string_view name);

// An id that names an existing message (to cancel, reschedule, requeue...): the same rule as a
// queue name, but spaces are allowed. Generated ids pass. Throws InvalidArgument.
void validate_message_id(std::string_view id);

// What Queue::send, send_async and send_batch check before writing: the payload against the
// queue's limit, and the options (an id of the generated form, 14 lowercase hex digits, is
// reserved; an empty id is refused; delay, due time, max_attempts and expiry within bounds).
// Throws InvalidArgument naming the problem.
void validate_message(std::string_view payload, const SendOptions& options,
                      const QueueOptions& queue = {});

// What the send script checks against the Redis clock, `now` (Client::server_time()): the due
// time a delay gives is not after the year 9999, and an expiry falls after the due time. A send
// made later than `now` sees a later clock: pass the latest time the send may happen for the
// first check to hold then too (the expiry check only gets easier as the clock moves on). Throws
// InvalidArgument naming the problem.
void validate_due(const SendOptions& options, TimePoint now);

// What Client::queue checks of QueueOptions::durability: replicas from 0 to kMaxWaitReplicas,
// a timeout from 0 to kMaxWaitTimeout and more than 0 with replicas (WAIT 0 waits forever).
// Throws InvalidArgument naming the problem.
void validate_durability(const Durability& durability);

// What a Consumer checks of its options when it is made (concurrency, batch sizes, timers no
// longer than 100 years, backoff), for front ends that lease on their own with the same
// options. Throws InvalidArgument naming the problem.
void validate_consumer_options(const ConsumerOptions& options);

}  // namespace delayq
