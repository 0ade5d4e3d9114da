#include "consumer/lease_extender.hpp"

#include <algorithm>
#include <optional>
#include <span>
#include <vector>

#include "delayq/error.hpp"
#include "log.hpp"
#include "validate.hpp"

namespace delayq::detail {

void LeaseExtender::lost(const Lease& lease) {
    // Gone or completing: the outcome reached Redis first, which is no loss.
    if (!held_.lose(lease)) return;
    // A delivery no handler started yet is dropped: the message is someone else's now.
    buffer_.drop(lease);
    context_.counters.leases_lost.fetch_add(1, std::memory_order_relaxed);
    log().warn("queue {}: lease of message {} was lost while it was held", context_.core->name(),
               lease.id());
}

void LeaseExtender::run() {
    const Duration visibility = context_.options.visibility_timeout;
    const Duration interval = std::max(Duration(1), visibility / 3);
    std::optional<Connection> conn;
    while (stop_.sleep_for(interval)) {
        const std::vector<Lease> leases = held_.all();
        if (leases.empty()) continue;
        try {
            // After the cluster moved the queue's slot, a connection to the new primary.
            if (conn && !context_.core->serves(*conn)) conn.reset();
            if (!conn) conn.emplace(context_.core->connect());
            for (std::size_t i = 0; i < leases.size(); i += kMaxBatch) {
                std::span chunk(leases.data() + i, std::min(kMaxBatch, leases.size() - i));
                auto deadlines = context_.core->extend(*conn, chunk, visibility);
                for (std::size_t j = 0; j < chunk.size(); ++j) {
                    if (deadlines[j].lost()) lost(chunk[j]);
                }
            }
        } catch (const Error& e) {
            context_.report_redis_error("extend", e);
            conn.reset();
        }
    }
}

}  // namespace delayq::detail
