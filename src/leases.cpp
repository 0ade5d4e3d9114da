#include "delayq/leases.hpp"

#include "queue_core.hpp"

namespace delayq {

Leases::Leases(std::shared_ptr<detail::QueueCore> core) : core_(std::move(core)) {}

const std::string& Leases::name() const { return core_->name(); }

FetchResult Leases::fetch(std::size_t max_count, Duration visibility) {
    auto conn = core_->acquire();
    return core_->fetch(*conn, max_count, visibility);
}

LeaseResult Leases::ack(const Lease& lease) { return ack(std::span(&lease, 1)).front(); }

std::vector<LeaseResult> Leases::ack(std::span<const Lease> leases) {
    if (leases.empty()) return {};
    auto conn = core_->acquire();
    return core_->ack(*conn, leases);
}

LeaseResult Leases::nack(const Lease& lease, const Nack& nack) {
    auto conn = core_->acquire();
    return core_->nack(*conn, lease, nack.delay, nack.error, false);
}

LeaseResult Leases::reject(const Lease& lease, const Reject& reject) {
    auto conn = core_->acquire();
    return core_->nack(*conn, lease, Duration(0), reject.error, true);
}

LeaseResult Leases::extend(const Lease& lease, Duration visibility) {
    return extend(std::span(&lease, 1), visibility).front();
}

std::vector<LeaseResult> Leases::extend(std::span<const Lease> leases, Duration visibility) {
    if (leases.empty()) return {};
    auto conn = core_->acquire();
    return core_->extend(*conn, leases, visibility);
}

LeaseResult Leases::release(const Lease& lease) { return release(std::span(&lease, 1)).front(); }

std::vector<LeaseResult> Leases::release(std::span<const Lease> leases) {
    if (leases.empty()) return {};
    auto conn = core_->acquire();
    return core_->release(*conn, leases);
}

}  // namespace delayq
