#include "delayq/queue_admin.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <unordered_set>
#include <vector>

#include "codec/inspect.hpp"
#include "codec/settings.hpp"
#include "delayq/error.hpp"
#include "log.hpp"
#include "queue_core.hpp"
#include "schedule/registry.hpp"
#include "validate.hpp"

namespace delayq {
namespace {

// Applies a dead-letter script (requeue or purge) to what `which` selects, in bounded chunks.
std::size_t over_dead_letters(detail::QueueCore& core, const detail::ScriptSource& script,
                              const DeadLetterSelector& which) {
    if (which.all && !which.ids.empty()) {
        throw InvalidArgument("dead-letter selector: name ids or all, not both");
    }
    for (const std::string& id : which.ids) detail::validate_id(id);
    auto conn = core.acquire();
    std::size_t moved = 0;
    if (which.all) {
        // Until the set is empty or a call makes no progress (orphans removed count as progress).
        std::size_t before = std::numeric_limits<std::size_t>::max();
        for (;;) {
            const auto answer = core.dead_letters(*conn, script, {}, detail::kMaxBatch);
            moved += answer.moved;
            if (answer.left == 0 || answer.left >= before) return moved;
            before = answer.left;
        }
    }
    // Each id once, so that one named twice in different chunks is not counted twice.
    std::vector<std::string> ids;
    std::unordered_set<std::string_view> seen;
    for (const std::string& id : which.ids) {
        if (seen.insert(id).second) ids.push_back(id);
    }
    const std::span<const std::string> all_ids(ids);
    for (std::size_t i = 0; i < all_ids.size(); i += detail::kMaxBatch) {
        auto chunk = all_ids.subspan(i, std::min(detail::kMaxBatch, all_ids.size() - i));
        moved += core.dead_letters(*conn, script, chunk, chunk.size()).moved;
    }
    return moved;
}

}  // namespace

QueueAdmin::QueueAdmin(std::shared_ptr<detail::QueueCore> core) : core_(std::move(core)) {}

const std::string& QueueAdmin::name() const { return core_->name(); }

std::optional<MessageInfo> QueueAdmin::get(std::string_view id) {
    auto conn = core_->acquire();
    return core_->get(*conn, id);
}

Timeline QueueAdmin::timeline(Duration bucket, std::size_t buckets) {
    // Before any connection: bad input is refused as such while Redis is down too.
    const detail::ScriptArgs args = detail::inspect_codec::encode_timeline(bucket, buckets);
    auto conn = core_->acquire();
    return core_->timeline(*conn, args, bucket);
}

bool QueueAdmin::record_history() {
    auto conn = core_->acquire();
    return core_->record_history(*conn);
}

std::vector<QueueStats> QueueAdmin::history(TimePoint since, std::size_t limit) {
    const detail::ScriptArgs args = detail::inspect_codec::encode_history(since, limit);
    auto conn = core_->acquire();
    return core_->history(*conn, args);
}

QueueStats QueueAdmin::stats() {
    auto conn = core_->acquire();
    return core_->stats(*conn);
}

MessagePage QueueAdmin::list(State state, const PageRequest& page) {
    auto conn = core_->acquire();
    return core_->list(*conn, state, page);
}

QueueSettings QueueAdmin::settings() {
    auto conn = core_->acquire();
    return core_->settings(*conn, detail::ScriptArgs{});
}

QueueSettings QueueAdmin::update_settings(const SettingsUpdate& update) {
    const detail::ScriptArgs changes = detail::settings_codec::encode_update(update);
    auto conn = core_->acquire();
    return core_->settings(*conn, changes);
}

void QueueAdmin::pause() {
    auto conn = core_->acquire();
    core_->settings(*conn, detail::settings_codec::encode_paused(true));
}

void QueueAdmin::resume() {
    auto conn = core_->acquire();
    core_->settings(*conn, detail::settings_codec::encode_paused(false));
}

DeleteResult QueueAdmin::delete_queue(bool force) {
    DeleteResult result;
    {
        auto conn = core_->acquire();
        result = core_->delete_queue(*conn, force);
    }
    if (result.status != DeleteStatus::kDeleted) return result;
    // The queue is gone with its schedules whatever happens here: a registry entry left behind
    // costs a scheduler one read per poll until the queue has schedules again.
    try {
        detail::unregister_schedules(*core_);
        detail::unindex_push_target(*core_);
    } catch (const Error& e) {
        detail::log().warn("queue {}: deleted, but not unlisted from {} or {}: {}", core_->name(),
                           detail::kScheduleRegistryKey, detail::kPushRegistryKey, e.what());
    }
    return result;
}

std::size_t QueueAdmin::requeue(const DeadLetterSelector& which) {
    return over_dead_letters(*core_, detail::scripts::kDeadRequeue, which);
}

std::size_t QueueAdmin::purge(const DeadLetterSelector& which) {
    return over_dead_letters(*core_, detail::scripts::kDeadPurge, which);
}

}  // namespace delayq
