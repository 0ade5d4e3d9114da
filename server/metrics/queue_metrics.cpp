#include "metrics/queue_metrics.hpp"

#include <chrono>
#include <cstdint>
#include <limits>
#include <utility>

#include "metrics/text_format.hpp"

namespace delayq::server {
namespace {

double seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

struct Counter {
    const char* name;
    const char* help;
    std::uint64_t Totals::*member;
};

constexpr Counter kCounters[] = {
    {"delayq_sent_total", "Messages stored by sends.", &Totals::sent},
    {"delayq_delivered_total", "Deliveries (leases handed out), redeliveries included.",
     &Totals::delivered},
    {"delayq_acked_total", "Deliveries acknowledged.", &Totals::acked},
    {"delayq_retried_total", "Nacks and lapsed leases that went back to pending.",
     &Totals::retried},
    {"delayq_dead_lettered_total", "Messages moved to the dead-letter set.",
     &Totals::dead_lettered},
    {"delayq_expired_total", "Dead letters by expiry (part of dead_lettered).", &Totals::expired},
    {"delayq_cancelled_total", "Messages cancelled before delivery.", &Totals::cancelled},
    {"delayq_released_total", "Leases handed back unstarted by stopping consumers.",
     &Totals::released},
    {"delayq_requeued_total", "Dead letters requeued.", &Totals::requeued},
    {"delayq_purged_total", "Dead letters purged.", &Totals::purged},
    {"delayq_dead_trimmed_total", "Dead letters removed by the retention bounds.",
     &Totals::dead_trimmed},
    {"delayq_orphans_removed_total", "Index entries without a record removed (data loss).",
     &Totals::orphans_removed},
};

// Occurrences of the queue's recurring schedules, by what became of them.
constexpr std::pair<const char*, std::uint64_t Totals::*> kOccurrences[] = {
    {"fired", &Totals::schedule_fired},
    {"missed", &Totals::schedule_missed},
    {"skipped", &Totals::schedule_skipped},
};

}  // namespace

void render_queue_metrics(TextFormat& out, std::span<const QueueSample> queues) {
    out.family("delayq_messages", "gauge",
               "Messages by state. A lease that lapsed counts as in_flight until the queue's next "
               "fetch returns its message to pending.");
    for (const auto& q : queues) {
        const QueueStats& s = q.stats;
        const std::pair<const char*, std::size_t> states[] = {{"scheduled", s.scheduled},
                                                              {"ready", s.ready},
                                                              {"in_flight", s.in_flight},
                                                              {"dead", s.dead}};
        for (const auto& [state, n] : states) {
            out.sample("delayq_messages", {{"queue", q.queue}, {"state", state}},
                       static_cast<double>(n));
        }
    }
    out.family("delayq_oldest_ready_age_seconds", "gauge",
               "How long the oldest ready message has waited for a consumer (the queue's lag).");
    for (const auto& q : queues) {
        out.sample("delayq_oldest_ready_age_seconds", {{"queue", q.queue}},
                   seconds(q.stats.oldest_ready_age));
    }
    for (const Counter& c : kCounters) {
        out.family(c.name, "counter", c.help);
        for (const auto& q : queues) {
            out.sample(c.name, {{"queue", q.queue}}, static_cast<double>(q.stats.totals.*c.member));
        }
    }
    const char* const occurrences = "delayq_schedule_occurrences_total";
    out.family(occurrences, "counter",
               "Occurrences of the queue's recurring schedules: fired (sent), missed (not sent by "
               "the catch-up policy while no scheduler ran), skipped (not sent by overlap skip).");
    for (const auto& q : queues) {
        for (const auto& [outcome, member] : kOccurrences) {
            out.sample(occurrences, {{"queue", q.queue}, {"outcome", outcome}},
                       static_cast<double>(q.stats.totals.*member));
        }
    }
    const std::string lateness = "delayq_delivery_lateness_seconds";
    out.family(lateness, "histogram",
               "How long after its due time each delivery came, by the Redis clock, counted by "
               "every consumer's fetch.");
    for (const auto& q : queues) {
        const LatenessHistogram& h = q.stats.lateness;
        for (const auto& b : h.buckets) {
            const std::string le = format_value(
                b.le == Duration::max() ? std::numeric_limits<double>::infinity() : seconds(b.le));
            out.sample(lateness + "_bucket", {{"queue", q.queue}, {"le", le}},
                       static_cast<double>(b.count));
        }
        out.sample(lateness + "_sum", {{"queue", q.queue}}, seconds(h.sum));
        out.sample(lateness + "_count", {{"queue", q.queue}}, static_cast<double>(h.count));
    }
}

}  // namespace delayq::server
