#include "schedule/registry.hpp"

#include "codec/schedule.hpp"
#include "queue_core.hpp"

namespace delayq::detail {

void unregister_schedules(QueueCore& core) {
    unindex_queue(core.client(), QueueIndex::kSchedules, core.name());
    // A schedule added between the script that left none and the ZREM registered before the
    // ZREM: look again, and register it back.
    auto conn = core.acquire();
    const auto page = core.schedule_get(*conn, schedule_codec::encode_get_page("0", 1));
    if (!page.schedules.empty() || page.cursor != "0") {
        index_queue(core.client(), QueueIndex::kSchedules, core.name(), page.now);
    }
}

}  // namespace delayq::detail
