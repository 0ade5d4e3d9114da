#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "fault/history.hpp"

namespace delayq::fault {

enum class DuplicateKind {
    kAfterAck,  // delivered again after a delivery whose handler returned Ack
    kOverlap,   // delivered while an earlier delivery's lease had not yet run out
};

struct Duplicate {
    DeliveryEvent earlier;
    DeliveryEvent later;
    DuplicateKind kind = DuplicateKind::kAfterAck;
    AckStatus earlier_ack = AckStatus::kRequested;  // meaningful for kAfterAck
    std::string cause;  // kind of the injected fault that explains it; empty: unexplained
};

struct Report {
    std::size_t sends_acknowledged = 0;  // distinct ids
    std::size_t send_attempts = 0;
    std::size_t sends_unknown = 0;
    std::size_t sends_failed = 0;
    std::size_t sends_duplicate = 0;  // a retry found its id stored: an earlier try had landed
    std::size_t deliveries = 0;
    std::size_t redeliveries = 0;  // deliveries after an earlier one that was not acked
    std::size_t acks = 0;          // ok or requested
    std::size_t acks_lease_lost = 0;
    std::vector<std::string> lost;        // acknowledged, never delivered and acked
    std::vector<std::string> unexpected;  // delivered, never (possibly) sent
    std::vector<DeliveryEvent> early;     // delivered before its due time, by the Redis clock
    std::vector<Duplicate> duplicates;
    std::map<std::string, std::size_t> faults_by_kind;

    std::size_t unexplained_duplicates() const;
    std::map<std::string, std::size_t> duplicates_by_cause() const;
    // Counts, faults by kind, duplicates by cause, and the first few problems in detail.
    std::string summary() const;
};

// Judges a merged history. Duplicates are explained by a fault that can cause them and that
// overlaps, in Redis time, the span from the earlier delivery to the later one, and hit the
// earlier delivery's process (or every process): a killed or stopped consumer, a killed
// connection, a paused or sleeping or restarted Redis, a slot move, a failover. An
// acked-and-confirmed message delivered again, or two overlapping leases, break the library's
// fencing whatever the faults, and only a fault that loses confirmed writes explains them:
// redis_data_loss, primary_kill (a replica that had not yet received them took over), or
// sentinel_failover (the old primary took writes until it was made a replica).
Report check(const History& history);

}  // namespace delayq::fault
