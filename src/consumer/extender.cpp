#include "consumer/extender.hpp"

#include <vector>

#include "consumer/shared.hpp"
#include "delayq/error.hpp"
#include "log.hpp"
#include "validate.hpp"

namespace delayq::detail {

void Extender::lost(const Lease& lease) {
    ConsumerShared& s = shared_;
    auto it = s.held.find(lease.id());
    // Gone or completing: the outcome reached Redis first, which is no loss.
    if (it == s.held.end() || it->second.token != lease.token() || it->second.completing) return;
    s.held.erase(it);
    // A delivery no handler started yet is dropped: the message is someone else's now.
    std::erase_if(s.buffered, [&](const Delivery& d) { return d.lease() == lease; });
    s.counters.leases_lost.fetch_add(1, std::memory_order_relaxed);
    log().warn("queue {}: lease of message {} was lost while it was held", s.core->name(),
               lease.id());
}

void Extender::run() {
    ConsumerShared& s = shared_;
    const Duration interval = std::max(Duration(1), s.options.visibility_timeout / 3);
    std::optional<Connection> conn;
    for (;;) {
        std::vector<Lease> leases;
        {
            std::unique_lock lock(s.mutex);
            s.sleep_for(lock, interval, [&] { return s.extender_stop; });
            if (s.extender_stop) break;
            leases.reserve(s.held.size());
            for (const auto& [id, lease] : s.held) leases.emplace_back(id, lease.token);
        }
        if (leases.empty()) continue;
        try {
            if (!conn) conn.emplace(s.core->client().connect());
            for (std::size_t i = 0; i < leases.size(); i += kMaxBatch) {
                std::span chunk(leases.data() + i, std::min(kMaxBatch, leases.size() - i));
                auto deadlines = s.core->extend(*conn, chunk, s.options.visibility_timeout);
                std::lock_guard lock(s.mutex);
                for (std::size_t j = 0; j < chunk.size(); ++j) {
                    if (deadlines[j].lost()) lost(chunk[j]);
                }
            }
        } catch (const Error& e) {
            report_redis_error(s, "extend", e);
            conn.reset();
        }
    }
}

}  // namespace delayq::detail
