#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "client_core.hpp"
#include "delayq/types.hpp"

// The indexes of queues that have something a background loop serves: schedules (for the
// schedulers) and push targets (for the pushers), so that those loops find their queues without
// scanning the keyspace. Each is a zset outside every queue's slot, queue -> when it was last
// registered (unix ms, Redis clock), written by commands of their own beside the queue's
// scripts, in an order that keeps every served queue listed whatever runs at once
// (docs/design.md, Schedules): a change that leaves the queue served registers before its
// script (so a user who may not write the index is refused before anything changes) and after
// it; a removal unregisters, then looks again and registers back if the queue is served again.
namespace delayq::detail {

enum class QueueIndex { kSchedules, kPushTargets };

std::string_view queue_index_key(QueueIndex index);

// ZADD of the queue, scored with `now` (the Redis clock's, as a script saw it); without one,
// a queue not listed yet is listed with score 0 (a write before the script, which has no time
// to give yet).
void index_queue(ClientCore& client, QueueIndex index, std::string_view queue,
                 std::optional<TimePoint> now);
void unindex_queue(ClientCore& client, QueueIndex index, std::string_view queue);
// After the queue's push target was removed (or the queue deleted): unlists it, then lists it
// again if a target was set meanwhile.
class QueueCore;
void unindex_push_target(QueueCore& core);

// The listed queues, sorted by name.
std::vector<std::string> indexed_queues(ClientCore& client, QueueIndex index);

}  // namespace delayq::detail
