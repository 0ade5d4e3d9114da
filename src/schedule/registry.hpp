#pragma once

#include "queue_index.hpp"

// The index of queues with schedules (QueueIndex::kSchedules, kScheduleRegistryKey).
namespace delayq::detail {

class QueueCore;

// After a removal that left the queue no schedules (or a delete of the queue): unregisters,
// then registers back if a schedule was added meanwhile.
void unregister_schedules(QueueCore& core);

}  // namespace delayq::detail
