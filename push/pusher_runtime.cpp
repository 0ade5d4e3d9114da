#include "push/pusher_runtime.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

#include "delayq/error.hpp"
#include "delayq/limits.hpp"
#include "delayq/validate.hpp"
#include "push/request.hpp"
#include "push/retry_after.hpp"

namespace delayq::push {
namespace {

using Steady = std::chrono::steady_clock;

constexpr Duration kFirstBackoff = std::chrono::milliseconds(100);
constexpr Duration kLastBackoff = std::chrono::seconds(30);

Duration backoff(int failures) {
    Duration wait = kFirstBackoff;
    for (int i = 1; i < failures && wait < kLastBackoff; ++i) wait *= 2;
    return std::min(wait, kLastBackoff);
}

void observe(PushLatency& latency, Duration value) {
    const double seconds = std::chrono::duration<double>(value).count();
    const auto* bound =
        std::lower_bound(kPushLatencyBuckets.begin(), kPushLatencyBuckets.end(), seconds);
    if (bound != kPushLatencyBuckets.end()) {
        ++latency.buckets[static_cast<std::size_t>(bound - kPushLatencyBuckets.begin())];
    }
    ++latency.count;
    latency.sum += seconds;
}

}  // namespace

PusherRuntime::PusherRuntime(Client client, PusherOptions options)
    : client_(std::move(client)), options_(std::move(options)) {
    for (const std::string& q : options_.queues) validate_queue_name(q);
    validate_push_network(options_.network);
    if (options_.max_in_flight == 0)
        throw InvalidArgument("pusher max_in_flight must be at least 1");
    if (options_.max_queues == 0) throw InvalidArgument("pusher max_queues must be at least 1");
    if (options_.discover <= Duration::zero() || options_.idle_check <= Duration::zero()) {
        throw InvalidArgument("pusher discover and idle_check must be positive");
    }
}

PusherRuntime::~PusherRuntime() {
    stop();
    wait();
}

void PusherRuntime::start() {
    std::lock_guard lock(mutex_);
    if (started_) return;
    started_ = true;
    if (stopping_) {
        stopped_ = true;
        return;
    }
    thread_ = std::thread([this] { run(); });
}

void PusherRuntime::stop() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        if (!started_) stopped_ = true;
    }
    cv_.notify_all();
}

void PusherRuntime::wait() {
    {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [this] { return stopped_; });
    }
    if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

PusherStats PusherRuntime::stats() const {
    std::lock_guard lock(stats_mutex_);
    return stats_;
}

void PusherRuntime::run() {
    try {
        http_ = std::make_unique<HttpClient>(
            HttpClientOptions{options_.network, options_.ca_file, options_.max_in_flight});
        for (;;) {
            {
                std::lock_guard lock(mutex_);
                if (stopping_) break;
            }
            const Steady::time_point now = Steady::now();
            if (now >= discover_at_) {
                discover(now);
                discover_at_ = now + options_.discover;
            }
            settle(take_done(), now);
            for (auto& [name, queue] : queues_) {
                if (in_flight_ >= options_.max_in_flight) break;
                if (queue->retry_at <= now && queue->take_wake()) lease(queue, now);
            }
            // A lease that filled its batch asked for another at once; a queue that failed
            // waits for its back-off.
            Steady::time_point deadline = discover_at_;
            bool again = false;
            for (auto& [name, queue] : queues_) {
                if (queue->retry_at > now) {
                    deadline = std::min(deadline, queue->retry_at);
                } else if (queue->wake_pending() && in_flight_ < options_.max_in_flight) {
                    again = true;
                }
            }
            if (!again) wait_for_work(deadline);
        }
        drain();
    } catch (const std::exception& e) {
        // Not expected (every Redis call is caught where it is made): the pusher stops, said.
        spdlog::error("pusher: stopped by an unexpected error: {}", e.what());
    }
    http_.reset();
    queues_.clear();
    {
        std::lock_guard lock(mutex_);
        stopped_ = true;
    }
    cv_.notify_all();
}

void PusherRuntime::wait_for_work(Steady::time_point deadline) {
    std::unique_lock lock(mutex_);
    cv_.wait_until(lock, deadline, [this] { return stopping_ || woken_ || !done_.empty(); });
    woken_ = false;
}

std::vector<PusherRuntime::Done> PusherRuntime::take_done() {
    std::vector<Done> out;
    std::lock_guard lock(mutex_);
    out.swap(done_);
    return out;
}

void PusherRuntime::drain() {
    const Steady::time_point until = Steady::now() + options_.drain;
    while (in_flight_ > 0) {
        {
            std::unique_lock lock(mutex_);
            if (!cv_.wait_until(lock, until, [this] { return !done_.empty(); })) break;
        }
        settle(take_done(), Steady::now());
    }
    if (in_flight_ > 0) {
        spdlog::warn(
            "pusher: stopped with {} requests unanswered; their messages come back "
            "when their leases end",
            in_flight_);
    }
    for (auto& [name, queue] : queues_) record(*queue, Steady::now(), true);
}

void PusherRuntime::discover(Steady::time_point now) {
    std::vector<std::string> names = options_.queues;
    if (names.empty()) {
        try {
            names = client_.push_queues();
        } catch (const Error& e) {
            {
                std::lock_guard lock(stats_mutex_);
                ++stats_.redis_errors;
            }
            spdlog::warn("pusher: cannot list the queues with push targets: {}", e.what());
            return;
        }
    }
    std::uint64_t over = 0;
    for (const std::string& name : names) {
        if (queues_.count(name) != 0) continue;
        try {
            validate_queue_name(name);
        } catch (const InvalidArgument& e) {
            spdlog::warn("pusher: the push target index lists \"{}\", which is no queue name",
                         name);
            continue;
        }
        if (queues_.size() >= options_.max_queues) {
            ++over;
            continue;
        }
        follow(name);
    }
    // Targets: a change is seen here; a queue that lost its target is dropped once its
    // requests have been settled.
    for (auto it = queues_.begin(); it != queues_.end();) {
        PushQueue& q = *it->second;
        bool has = true;
        try {
            has = q.refresh();
        } catch (const InvalidArgument& e) {
            spdlog::error("pusher: queue {}: its push target cannot be used: {}", q.name(),
                          e.what());
        } catch (const Error& e) {
            failed(q, e, "read its push target", now);
        }
        const bool listed = std::find(names.begin(), names.end(), q.name()) != names.end();
        if ((!has || !listed) && q.in_flight == 0) {
            record(q, now, true);
            {
                std::lock_guard lock(stats_mutex_);
                stats_.queues.erase(q.name());
            }
            it = queues_.erase(it);
            continue;
        }
        ++it;
    }
    std::lock_guard lock(stats_mutex_);
    stats_.queues_over_limit += over;
}

void PusherRuntime::follow(const std::string& name) {
    auto queue = std::make_shared<PushQueue>(client_, name, options_.idle_check, [this] {
        {
            std::lock_guard lock(mutex_);
            woken_ = true;
        }
        cv_.notify_all();
    });
    queues_.emplace(name, std::move(queue));
    std::lock_guard lock(stats_mutex_);
    stats_.queues.emplace(name, PushQueueStats{});
}

void PusherRuntime::lease(const std::shared_ptr<PushQueue>& shared, Steady::time_point now) {
    PushQueue& queue = *shared;
    const PushTarget* target = queue.target();
    if (target == nullptr) return;
    const std::size_t room =
        std::min({kMaxBatch, options_.max_in_flight - in_flight_,
                  target->max_in_flight - std::min(target->max_in_flight, queue.in_flight)});
    if (room == 0) {
        queue.limited = true;
        return;
    }
    PushLeases leased;
    try {
        leased = queue.targets().lease(room);
    } catch (const Error& e) {
        failed(queue, e, "lease", now);
        return;
    }
    queue.failures = 0;
    queue.waiter().note_fetch(leased.fetch);
    if (!leased.has_target) {
        // Removed since it was read: the next discovery drops the queue.
        discover_at_ = now;
        return;
    }
    queue.limited = leased.limited;
    const Steady::time_point at = Steady::now();
    for (const Delivery& d : leased.fetch.deliveries) send(shared, d, at);
    // As many as there was room for: more may be due at once.
    if (leased.fetch.deliveries.size() == room && !leased.limited) queue.wake();
}

void PusherRuntime::send(const std::shared_ptr<PushQueue>& queue, const Delivery& delivery,
                         Steady::time_point leased) {
    const PushTarget& target = *queue->target();
    HttpRequest request =
        push_request(target, queue->signer(), delivery, std::chrono::system_clock::now());
    ++queue->in_flight;
    ++in_flight_;
    {
        std::lock_guard lock(stats_mutex_);
        ++stats_.queues[queue->name()].in_flight;
        ++stats_.in_flight;
    }
    Done pending{queue, delivery.lease(), delivery.lateness(), leased, {}, {}};
    http_->submit(std::move(request), [this, pending = std::move(pending)](HttpAnswer a) mutable {
        pending.answered = Steady::now();
        pending.answer = std::move(a);
        {
            std::lock_guard lock(mutex_);
            done_.push_back(std::move(pending));
        }
        cv_.notify_all();
    });
}

void PusherRuntime::settle(std::vector<Done> done, Steady::time_point now) {
    if (done.empty()) return;
    std::map<PushQueue*, std::vector<Done>> by_queue;
    for (Done& d : done) by_queue[d.queue.get()].push_back(std::move(d));
    const bool was_full = in_flight_ >= options_.max_in_flight;
    for (auto& [queue, items] : by_queue) settle_queue(*queue, items, now);
    // Room came back: every queue held back by a limit may lease again.
    for (auto& [name, queue] : queues_) {
        if (queue->limited || was_full) queue->wake();
    }
}

void PusherRuntime::settle_queue(PushQueue& queue, std::vector<Done>& done,
                                 Steady::time_point now) {
    PushQueueStats delta;
    std::vector<Lease> acks;
    for (Done& d : done) {
        --queue.in_flight;
        --in_flight_;
        observe(delta.latency,
                d.late + std::chrono::duration_cast<Duration>(d.answered - d.leased));
        const PushVerdict verdict = d.answer.verdict();
        queue.unrecorded = PushQueue::Answer{d.answer.status, verdict.error};
        try {
            switch (verdict.action) {
                case PushAction::kAck:
                    acks.push_back(d.lease);
                    break;
                case PushAction::kRetry: {
                    Nack nack{std::nullopt, verdict.error};
                    if (d.answer.retry_after) {
                        nack.delay = parse_retry_after(*d.answer.retry_after,
                                                       std::chrono::system_clock::now());
                    }
                    const LeaseResult r = queue.leases().nack(d.lease, nack);
                    if (r.lost())
                        ++delta.lost;
                    else if (r.status == LeaseStatus::kDeadLettered)
                        ++delta.dead_lettered;
                    else
                        ++delta.retried;
                    break;
                }
                case PushAction::kDeadLetter: {
                    const LeaseResult r = queue.leases().reject(d.lease, Reject{verdict.error});
                    if (r.lost())
                        ++delta.lost;
                    else
                        ++delta.dead_lettered;
                    break;
                }
            }
        } catch (const Error& e) {
            // Unsettled: the lease ends, and the message comes back then.
            failed(queue, e, "settle a push", now);
        }
    }
    for (std::size_t at = 0; at < acks.size(); at += kMaxBatch) {
        const std::size_t n = std::min(kMaxBatch, acks.size() - at);
        try {
            for (const LeaseResult& r : queue.leases().ack(std::span(acks).subspan(at, n))) {
                if (r.lost())
                    ++delta.lost;
                else
                    ++delta.acked;
            }
        } catch (const Error& e) {
            failed(queue, e, "ack pushes", now);
        }
    }
    record(queue, now, false);
    std::lock_guard lock(stats_mutex_);
    stats_.in_flight = in_flight_;
    PushQueueStats& s = stats_.queues[queue.name()];
    s.in_flight = queue.in_flight;
    s.acked += delta.acked;
    s.retried += delta.retried;
    s.dead_lettered += delta.dead_lettered;
    s.lost += delta.lost;
    for (std::size_t i = 0; i < s.latency.buckets.size(); ++i) {
        s.latency.buckets[i] += delta.latency.buckets[i];
    }
    s.latency.count += delta.latency.count;
    s.latency.sum += delta.latency.sum;
}

void PusherRuntime::record(PushQueue& queue, Steady::time_point now, bool force) {
    if (!queue.unrecorded || (!force && now - queue.recorded_at < options_.record_every)) return;
    try {
        queue.targets().record(queue.unrecorded->status, queue.unrecorded->error);
        queue.unrecorded.reset();
        queue.recorded_at = now;
    } catch (const Error& e) {
        failed(queue, e, "record the last answer", now);
    }
}

void PusherRuntime::failed(PushQueue& queue, const std::exception& e, const char* what,
                           Steady::time_point now) {
    ++queue.failures;
    queue.retry_at = now + backoff(queue.failures);
    queue.wake();
    {
        std::lock_guard lock(stats_mutex_);
        ++stats_.redis_errors;
    }
    spdlog::warn("pusher: queue {}: could not {}: {}", queue.name(), what, e.what());
}

}  // namespace delayq::push
