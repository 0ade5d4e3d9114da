#include "schedule/scheduler_runtime.hpp"

#include <algorithm>

#include "delayq/error.hpp"
#include "delayq/limits.hpp"
#include "log.hpp"
#include "queue_core.hpp"
#include "schedule/claim_plan.hpp"
#include "schedule/registry.hpp"

namespace delayq::detail {
namespace {

// Recurrences kept at once; past it the cache starts again (a queue of more schedules than
// this pays a parse per claim, still bounded).
constexpr std::size_t kMaxRecurrences = 4096;
// A queue refused for its layout or the user's rights: its operator must act, so it is not
// retried at the back-off's pace.
constexpr Duration kRefusedRetry = std::chrono::minutes(1);

}  // namespace

SchedulerRuntime::SchedulerRuntime(std::shared_ptr<ClientCore> client, SchedulerOptions options)
    : client_(std::move(client)), options_(std::move(options)) {}

SchedulerRuntime::~SchedulerRuntime() {
    request_stop();
    join();
}

SchedulerStats SchedulerRuntime::stats() const {
    SchedulerStats out;
    out.claims = claims_.load(std::memory_order_relaxed);
    out.fired = fired_.load(std::memory_order_relaxed);
    out.missed = missed_.load(std::memory_order_relaxed);
    out.skipped = skipped_.load(std::memory_order_relaxed);
    out.conflicts = conflicts_.load(std::memory_order_relaxed);
    out.redis_errors = redis_errors_.load(std::memory_order_relaxed);
    out.queues_over_limit = over_limit_.load(std::memory_order_relaxed);
    std::lock_guard lock(stats_mutex_);
    out.queues = queues_;
    out.lag = lag_;
    return out;
}

void SchedulerRuntime::run() {
    while (!stop_.requested()) {
        auto now = Steady::now();
        if (now >= discover_at_) discover(now);
        Steady::time_point next = discover_at_;
        for (auto& [name, queue] : followed_) {
            if (stop_.requested()) return;
            if (queue.wake <= Steady::now()) queue.wake = serve(queue);
            next = std::min(next, queue.wake);
        }
        {
            std::lock_guard lock(stats_mutex_);
            queues_ = followed_.size();
            for (const auto& [name, queue] : followed_) lag_[name] = queue.lag;
        }
        const auto wait = std::chrono::ceil<Duration>(next - Steady::now());
        if (wait > Duration(0)) stop_.sleep_for(wait);
    }
}

void SchedulerRuntime::discover(Steady::time_point now) {
    discover_at_ = now + options_.discover;
    if (!options_.queues.empty()) {
        for (const std::string& queue : options_.queues) follow(queue);
        discover_at_ = Steady::time_point::max();
        return;
    }
    std::vector<std::string> registered;
    try {
        registered = indexed_queues(*client_, QueueIndex::kSchedules);
    } catch (const Error& e) {
        report_loop_error(redis_errors_, std::string(kScheduleRegistryKey), "schedule discovery",
                          e);
        return;
    }
    // Queues no longer registered are dropped with their state, so it stays what the registry
    // holds (up to max_queues).
    for (auto it = followed_.begin(); it != followed_.end();) {
        if (std::binary_search(registered.begin(), registered.end(), it->first)) {
            ++it;
        } else {
            std::lock_guard lock(stats_mutex_);
            lag_.erase(it->first);
            it = followed_.erase(it);
        }
    }
    for (const std::string& queue : registered) follow(queue);
}

void SchedulerRuntime::follow(const std::string& queue) {
    if (followed_.contains(queue)) return;
    if (followed_.size() >= options_.max_queues) {
        over_limit_.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    try {
        followed_.emplace(queue, Followed{queue_core(client_, queue, {})});
    } catch (const InvalidArgument& e) {
        // A registry entry that names no queue (written by hand): nothing to follow.
        log().warn("schedules: {} lists \"{}\", which is no queue name: {}", kScheduleRegistryKey,
                   queue, e.what());
    }
}

SchedulerRuntime::Steady::time_point SchedulerRuntime::serve(Followed& queue) {
    QueueCore& core = *queue.core;
    try {
        schedule_codec::PollAnswer poll;
        {
            auto conn = core.acquire();
            poll = core.schedule_poll(*conn, kMaxBatch);
        }
        const auto read_at = Steady::now();
        for (const auto& due : poll.due) {
            if (stop_.requested()) break;
            queue.lag = std::max(Duration(0), poll.now - due.claim_at);
            try {
                claim(core, due, poll.now);
            } catch (const InvalidArgument& e) {
                // A stored spec this host cannot compute (a zone its tzdata lacks): that
                // schedule waits, logged at each poll, and the queue's others go on.
                redis_errors_.fetch_add(1, std::memory_order_relaxed);
                log().error("queue {}: schedule {} cannot be claimed here: {}", core.name(),
                            due.name, e.what());
            }
        }
        queue.failures = 0;
        // More were due than one read returns: read again at once.
        if (poll.due.size() >= kMaxBatch) return Steady::now();
        Duration wait = options_.poll;
        if (poll.next_claim) wait = std::min(wait, *poll.next_claim - poll.now);
        return read_at + std::max(wait, Duration(0));
    } catch (const ConfigurationError& e) {
        return refused(core, e);
    } catch (const PermissionError& e) {
        return refused(core, e);
    } catch (const std::exception& e) {
        // A Redis failure: logged and retried; run() never throws.
        report_loop_error(redis_errors_, core.name(), "scheduler", e);
        return Steady::now() + reconnect_delay(++queue.failures);
    }
}

SchedulerRuntime::Steady::time_point SchedulerRuntime::refused(const QueueCore& core,
                                                               const std::exception& e) {
    log().error("queue {}: schedules refused, retried in a minute: {}", core.name(), e.what());
    redis_errors_.fetch_add(1, std::memory_order_relaxed);
    return Steady::now() + kRefusedRetry;
}

void SchedulerRuntime::claim(QueueCore& core, const schedule_codec::DueSchedule& due,
                             TimePoint now) {
    if (!due.next) return;  // ended: the script removes it from the claims on its next write
    const Recurrence& recurrence = recurrence_of(core.name(), due);
    const ClaimPlan plan = plan_claim(recurrence, due.spec, *due.next, now);
    schedule_codec::ClaimAnswer answer;
    {
        auto conn = core.acquire();
        answer = core.schedule_claim(
            *conn, {due.name, due.hash, *due.next, plan.then, plan.missed, plan.instants});
    }
    if (answer.status != "claimed") {
        conflicts_.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    claims_.fetch_add(1, std::memory_order_relaxed);
    fired_.fetch_add(answer.sent, std::memory_order_relaxed);
    missed_.fetch_add(plan.missed, std::memory_order_relaxed);
    skipped_.fetch_add(answer.skipped, std::memory_order_relaxed);
}

const Recurrence& SchedulerRuntime::recurrence_of(const std::string& queue,
                                                  const schedule_codec::DueSchedule& due) {
    std::string key = queue;
    key.append("\n").append(due.name).append("\n").append(due.hash).append("\n");
    key.append(std::to_string(due.anchor.time_since_epoch().count()));
    auto it = recurrences_.find(key);
    if (it != recurrences_.end()) return it->second;
    if (recurrences_.size() >= kMaxRecurrences) recurrences_.clear();
    return recurrences_.emplace(std::move(key), Recurrence::make(due.spec, due.anchor))
        .first->second;
}

}  // namespace delayq::detail
