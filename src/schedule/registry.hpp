#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "client_core.hpp"

// The registry of queues with schedules (kScheduleRegistryKey): how schedulers find their
// queues without scanning the keyspace. It lives outside every queue's slot, so it is written by
// commands of their own beside the schedule scripts, in an order that keeps every queue with
// schedules registered whatever runs at once (docs/design.md, Schedules): a change that leaves
// schedules registers after its script; a removal of the last one unregisters, then looks again
// and registers back if a schedule came meanwhile.
namespace delayq::detail {

class QueueCore;

// ZADD of the queue, scored with the Redis clock's now (ms) as the script saw it.
void register_schedules(ClientCore& client, std::string_view queue, TimePoint now);

// After a removal that left the queue no schedules (or a delete of the queue).
void unregister_schedules(QueueCore& core);

// The registered queues, sorted by name.
std::vector<std::string> registered_queues(ClientCore& client);

}  // namespace delayq::detail
