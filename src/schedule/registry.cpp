#include "schedule/registry.hpp"

#include <algorithm>

#include "delayq/error.hpp"
#include "keys.hpp"
#include "queue_core.hpp"
#include "redis/key_slot.hpp"
#include "redis/permission.hpp"
#include "redis/routed_call.hpp"

namespace delayq::detail {
namespace {

// The registry key has a slot of its own, apart from every queue's: its commands are routed
// there, following MOVED as a queue's calls do.
Reply registry_command(ClientCore& client, std::initializer_list<std::string_view> argv) {
    const std::string_view what = *argv.begin();
    Reply r = run_routed_command(Route{client.topology(), key_slot(kScheduleRegistryKey)}, argv);
    check_permission(r, what);
    if (r.is_error()) {
        throw ServerError(std::string(what) + " " + std::string(kScheduleRegistryKey) + ": " +
                          r.str);
    }
    return r;
}

}  // namespace

void register_schedules(ClientCore& client, std::string_view queue, TimePoint now) {
    const std::string score = std::to_string(now.time_since_epoch().count());
    registry_command(client, {"ZADD", kScheduleRegistryKey, score, queue});
}

void unregister_schedules(QueueCore& core) {
    registry_command(core.client(), {"ZREM", kScheduleRegistryKey, core.name()});
    // A schedule added between the script that left none and the ZREM registered before the
    // ZREM: look again, and register it back.
    auto conn = core.acquire();
    const auto page = core.schedule_get(*conn, schedule_codec::encode_get_page("0", 1));
    if (!page.schedules.empty() || page.cursor != "0") {
        register_schedules(core.client(), core.name(), page.now);
    }
}

std::vector<std::string> registered_queues(ClientCore& client) {
    Reply r = registry_command(client, {"ZRANGE", kScheduleRegistryKey, "0", "-1"});
    std::vector<std::string> names;
    for (const Reply& e : r.as_array()) names.push_back(e.as_string());
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace delayq::detail
