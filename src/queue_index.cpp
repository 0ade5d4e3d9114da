#include "queue_index.hpp"

#include <algorithm>

#include "delayq/error.hpp"
#include "keys.hpp"
#include "queue_core.hpp"
#include "redis/key_slot.hpp"
#include "redis/permission.hpp"
#include "redis/routed_call.hpp"

namespace delayq::detail {
namespace {

// An index key has a slot of its own, apart from every queue's: its commands are routed there,
// following MOVED as a queue's calls do.
Reply index_command(ClientCore& client, QueueIndex index,
                    std::initializer_list<std::string_view> argv) {
    const std::string_view what = *argv.begin();
    const std::string_view key = queue_index_key(index);
    Reply r = run_routed_command(Route{client.topology(), key_slot(key)}, argv);
    check_permission(r, what);
    if (r.is_error()) throw ServerError(std::string(what) + " " + std::string(key) + ": " + r.str);
    return r;
}

}  // namespace

std::string_view queue_index_key(QueueIndex index) {
    return index == QueueIndex::kSchedules ? kScheduleRegistryKey : kPushRegistryKey;
}

void index_queue(ClientCore& client, QueueIndex index, std::string_view queue,
                 std::optional<TimePoint> now) {
    if (!now) {
        index_command(client, index, {"ZADD", queue_index_key(index), "NX", "0", queue});
        return;
    }
    const std::string score = std::to_string(now->time_since_epoch().count());
    index_command(client, index, {"ZADD", queue_index_key(index), score, queue});
}

void unindex_queue(ClientCore& client, QueueIndex index, std::string_view queue) {
    index_command(client, index, {"ZREM", queue_index_key(index), queue});
}

void unindex_push_target(QueueCore& core) {
    unindex_queue(core.client(), QueueIndex::kPushTargets, core.name());
    // A set between the removal and the ZREM listed the queue before the ZREM: look again.
    auto conn = core.acquire();
    if (const auto target = core.push_get(*conn)) {
        index_queue(core.client(), QueueIndex::kPushTargets, core.name(), target->updated);
    }
}

std::vector<std::string> indexed_queues(ClientCore& client, QueueIndex index) {
    Reply r = index_command(client, index, {"ZRANGE", queue_index_key(index), "0", "-1"});
    std::vector<std::string> names;
    for (const Reply& e : r.as_array()) names.push_back(e.as_string());
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace delayq::detail
