#include <utility>

#include "delayq/push.hpp"
#include "queue_core.hpp"

namespace delayq {

PushTargets::PushTargets(std::shared_ptr<detail::QueueCore> core) : core_(std::move(core)) {}

const std::string& PushTargets::queue() const { return core_->name(); }

PushSetStatus PushTargets::set(const PushTarget& target) {
    // Before any connection, so that bad input is refused as such while Redis is down too.
    validate_push_target(target);
    auto conn = core_->acquire();
    return core_->push_set(*conn, target);
}

std::optional<PushTargetInfo> PushTargets::get() {
    auto conn = core_->acquire();
    return core_->push_get(*conn);
}

bool PushTargets::remove() {
    auto conn = core_->acquire();
    return core_->push_remove(*conn);
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
