#include "consumer/held_leases.hpp"

namespace delayq::detail {

std::size_t HeldLeases::hold(std::span<const Delivery> deliveries) {
    std::size_t lapsed = 0;
    std::lock_guard lock(mutex_);
    for (const Delivery& d : deliveries) {
        auto [it, fresh] = held_.try_emplace(d.id(), Held{d.lease().token(), false});
        if (fresh) continue;
        // The older lease's entry is replaced, so it is counted now (the completer counts only
        // leases still held).
        if (!it->second.completing) ++lapsed;
        it->second = Held{d.lease().token(), false};
    }
    return lapsed;
}

void HeldLeases::mark_completing_locked(const Lease& lease) {
    auto it = held_.find(lease.id());
    if (it != held_.end() && it->second.token == lease.token()) it->second.completing = true;
}

void HeldLeases::forget_locked(const Lease& lease) {
    auto it = held_.find(lease.id());
    if (it != held_.end() && it->second.token == lease.token()) held_.erase(it);
}

bool HeldLeases::holds(const Lease& lease) const {
    std::lock_guard lock(mutex_);
    auto it = held_.find(lease.id());
    return it != held_.end() && it->second.token == lease.token();
}

bool HeldLeases::lose(const Lease& lease) {
    std::lock_guard lock(mutex_);
    auto it = held_.find(lease.id());
    if (it == held_.end() || it->second.token != lease.token() || it->second.completing) {
        return false;
    }
    held_.erase(it);
    return true;
}

std::vector<Lease> HeldLeases::all() const {
    std::lock_guard lock(mutex_);
    std::vector<Lease> out;
    out.reserve(held_.size());
    for (const auto& [id, held] : held_) out.emplace_back(id, held.token);
    return out;
}

}  // namespace delayq::detail
