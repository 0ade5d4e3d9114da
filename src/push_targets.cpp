#include <utility>

#include "delayq/push.hpp"
#include "queue_core.hpp"
#include "queue_index.hpp"

namespace delayq {

PushTargets::PushTargets(std::shared_ptr<detail::QueueCore> core) : core_(std::move(core)) {}

const std::string& PushTargets::queue() const { return core_->name(); }

PushSetStatus PushTargets::set(const PushTarget& target) {
    // Before any connection, so that bad input is refused as such while Redis is down too.
    validate_push_target(target);
    // Listed before the write too, so that a user who may not write the index is refused
    // before anything changes; listed again after it, with the script's time, which also heals
    // an entry lost with Redis's data (docs/design.md, Schedules: the same order).
    detail::index_queue(core_->client(), detail::QueueIndex::kPushTargets, core_->name(),
                        std::nullopt);
    auto conn = core_->acquire();
    const detail::push_codec::SetAnswer answer = core_->push_set(*conn, target);
    detail::index_queue(core_->client(), detail::QueueIndex::kPushTargets, core_->name(),
                        answer.now);
    return answer.status;
}

std::optional<PushTargetInfo> PushTargets::get() {
    auto conn = core_->acquire();
    return core_->push_get(*conn);
}

bool PushTargets::remove() {
    bool removed = false;
    {
        auto conn = core_->acquire();
        removed = core_->push_remove(*conn);
    }
    detail::unindex_push_target(*core_);
    return removed;
}

std::optional<PushTargets::ForPusher> PushTargets::read_for_pusher() {
    auto conn = core_->acquire();
    return core_->push_read(*conn);
}

PushLeases PushTargets::lease(std::size_t max_count) {
    auto conn = core_->acquire();
    return core_->push_lease(*conn, max_count);
}

void PushTargets::record(int status, std::string_view error) {
    auto conn = core_->acquire();
    core_->push_record(*conn, status, error);
}

}  // namespace delayq
