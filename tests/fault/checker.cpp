#include "fault/checker.hpp"

#include <algorithm>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace delayq::fault {
namespace {

// Faults that can undo writes Redis confirmed: a restart without the last writes, or the kill of
// a primary whose replica took over before it had them. Only they explain a message delivered
// again after a confirmed ack, or two leases at once.
const std::set<std::string>& faults_that_lose_writes() {
    // A Sentinel failover is not coordinated: the old primary takes writes until it is made a
    // replica, and then drops them.
    static const std::set<std::string> kinds = {"redis_data_loss", "primary_kill",
                                                "sentinel_failover"};
    return kinds;
}

// How long a fault that breaks connections keeps delaying acks after it ended: a consumer that
// failed several times in a row waits up to 5 s before it reconnects (reconnect_delay in
// src/loop.cpp), and its outcomes wait with it while their leases run out.
constexpr std::int64_t kRecoveryMs = 5000;

// Faults after which a consumer may have finished a handler without its ack reaching Redis
// before the lease ran out.
const std::set<std::string>& faults_that_delay_acks() {
    // A slot move holds a queue's calls until it ends (TRYAGAIN); a failover breaks the
    // connections to the former primary.
    static const std::set<std::string> kinds = {
        "consumer_kill", "consumer_stop",   "redis_kill",       "client_kill",
        "client_pause",  "debug_sleep",     "slot_move",        "failover",
        "primary_kill",  "redis_data_loss", "sentinel_failover"};
    return kinds;
}

std::string explain(const Duplicate& d, const std::vector<FaultEvent>& faults) {
    const bool fenced = d.kind == DuplicateKind::kOverlap || d.earlier_ack == AckStatus::kOk;
    for (const auto& f : faults) {
        const auto& kinds = fenced ? faults_that_lose_writes() : faults_that_delay_acks();
        if (kinds.count(f.kind) == 0) continue;
        if (!f.target.empty() && f.target != d.earlier.process) continue;
        const std::int64_t effect_end = fenced ? f.end_ms : f.end_ms + kRecoveryMs;
        if (effect_end < d.earlier.delivered_at_ms || f.start_ms > d.later.delivered_at_ms) {
            continue;
        }
        return f.kind;
    }
    return "";
}

std::string kind_name(DuplicateKind k) {
    return k == DuplicateKind::kAfterAck ? "after ack" : "overlapping leases";
}

}  // namespace

std::size_t Report::unexplained_duplicates() const {
    return static_cast<std::size_t>(std::count_if(duplicates.begin(), duplicates.end(),
                                                  [](const auto& d) { return d.cause.empty(); }));
}

std::map<std::string, std::size_t> Report::duplicates_by_cause() const {
    std::map<std::string, std::size_t> out;
    for (const auto& d : duplicates) ++out[d.cause.empty() ? "UNEXPLAINED" : d.cause];
    return out;
}

std::string Report::summary() const {
    std::ostringstream out;
    out << "messages: " << sends_acknowledged << " acknowledged sends (" << send_attempts
        << " attempts, " << sends_unknown << " unknown outcome, " << sends_failed << " failed, "
        << sends_duplicate << " found their id stored), " << deliveries << " deliveries ("
        << redeliveries << " redeliveries), " << acks << " acks, " << acks_lease_lost
        << " acks refused (lease lost)\n";
    out << "lost " << lost.size() << ", unexpected " << unexpected.size() << ", early "
        << early.size() << ", duplicates " << duplicates.size() << " (" << unexplained_duplicates()
        << " unexplained)\n";
    out << "faults:";
    if (faults_by_kind.empty()) out << " none";
    for (const auto& [kind, n] : faults_by_kind) out << ' ' << kind << '=' << n;
    out << "\nduplicates by cause:";
    if (duplicates.empty()) out << " none";
    for (const auto& [cause, n] : duplicates_by_cause()) out << ' ' << cause << '=' << n;
    out << '\n';
    constexpr std::size_t kShown = 5;
    for (std::size_t i = 0; i < std::min(lost.size(), kShown); ++i) {
        out << "  lost: " << lost[i] << '\n';
    }
    for (std::size_t i = 0; i < std::min(unexpected.size(), kShown); ++i) {
        out << "  unexpected: " << unexpected[i] << '\n';
    }
    for (std::size_t i = 0; i < std::min(early.size(), kShown); ++i) {
        out << "  early: " << early[i].id << " delivered at " << early[i].delivered_at_ms
            << ", due " << early[i].due_ms << '\n';
    }
    std::size_t shown = 0;
    for (const auto& d : duplicates) {
        if (!d.cause.empty() || shown++ == kShown) continue;
        out << "  unexplained duplicate (" << kind_name(d.kind) << "): " << d.later.id << " to "
            << d.earlier.process << " at " << d.earlier.delivered_at_ms << " (attempt "
            << d.earlier.attempt << ") and " << d.later.process << " at " << d.later.delivered_at_ms
            << " (attempt " << d.later.attempt << ")\n";
    }
    return out.str();
}

Report check(const History& history) {
    Report report;
    for (const auto& f : history.faults) ++report.faults_by_kind[f.kind];

    std::unordered_set<std::string> maybe_sent;
    std::unordered_map<std::string, std::int64_t> acknowledged_due;  // earliest acknowledged due
    // Ids tried with an unknown outcome before a try was acknowledged. That try may have stored
    // the message, due earlier than the acknowledged retry says, and been delivered then (a
    // failover kept it on the old primary, the retry stored it again on the new one): each
    // such delivery is judged by its own due time, the acknowledged one is no bound for it.
    std::unordered_set<std::string> tried_earlier;
    report.send_attempts = history.sends.size();
    for (const auto& s : history.sends) {  // one id's tries come from one producer, in order
        if (s.status == SendStatus::kFailed) {
            ++report.sends_failed;
            continue;
        }
        maybe_sent.insert(s.id);
        if (s.status == SendStatus::kUnknown) {
            ++report.sends_unknown;
            if (!acknowledged_due.contains(s.id)) tried_earlier.insert(s.id);
            continue;
        }
        if (s.status == SendStatus::kDuplicate) ++report.sends_duplicate;
        auto [it, inserted] = acknowledged_due.emplace(s.id, s.due_ms);
        if (!inserted) it->second = std::min(it->second, s.due_ms);
    }
    report.sends_acknowledged = acknowledged_due.size();

    // A delivery is known by its id and token: Redis never hands a token out twice in a queue.
    const auto key = [](const std::string& id, std::uint64_t token) {
        return id + '\t' + std::to_string(token);
    };
    std::unordered_map<std::string, AckStatus> ack_of;
    for (const auto& a : history.acks) {
        if (a.status == AckStatus::kLeaseLost) {
            ++report.acks_lease_lost;
            continue;
        }
        ++report.acks;
        ack_of[key(a.id, a.token)] = a.status;
    }

    std::unordered_map<std::string, std::vector<DeliveryEvent>> by_id;
    for (const auto& d : history.deliveries) by_id[d.id].push_back(d);
    report.deliveries = history.deliveries.size();

    std::set<std::string> handled;
    for (auto& [id, deliveries] : by_id) {
        if (maybe_sent.count(id) == 0) report.unexpected.push_back(id);
        std::sort(deliveries.begin(), deliveries.end(), [](const auto& a, const auto& b) {
            return a.delivered_at_ms != b.delivered_at_ms ? a.delivered_at_ms < b.delivered_at_ms
                                                          : a.attempt < b.attempt;
        });
        const auto sent = acknowledged_due.find(id);
        for (std::size_t j = 0; j < deliveries.size(); ++j) {
            const DeliveryEvent& later = deliveries[j];
            std::int64_t due = later.due_ms;
            if (sent != acknowledged_due.end() && !tried_earlier.contains(id)) {
                due = std::max(due, sent->second);
            }
            if (later.delivered_at_ms < due) report.early.push_back(later);
            if (ack_of.count(key(id, later.token)) != 0) handled.insert(id);

            std::optional<Duplicate> dup;
            for (std::size_t i = 0; i < j && !dup; ++i) {
                const DeliveryEvent& earlier = deliveries[i];
                const auto ack = ack_of.find(key(id, earlier.token));
                if (ack != ack_of.end()) {
                    dup = Duplicate{earlier, later, DuplicateKind::kAfterAck, ack->second, ""};
                } else if (later.delivered_at_ms < earlier.delivered_at_ms + earlier.lease_ms) {
                    dup = Duplicate{earlier, later, DuplicateKind::kOverlap, AckStatus::kLeaseLost,
                                    ""};
                }
            }
            if (dup) {
                dup->cause = explain(*dup, history.faults);
                report.duplicates.push_back(std::move(*dup));
            } else if (j > 0) {
                ++report.redeliveries;
            }
        }
    }
    for (const auto& [id, due] : acknowledged_due) {
        if (handled.count(id) == 0) report.lost.push_back(id);
    }
    std::sort(report.lost.begin(), report.lost.end());
    std::sort(report.unexpected.begin(), report.unexpected.end());
    return report;
}

}  // namespace delayq::fault
