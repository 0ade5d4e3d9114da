#include "fetch_share.hpp"

#include <algorithm>
#include <vector>

#include "delayq/limits.hpp"

namespace delayq::detail {

namespace {

// The clock fields of a fetch's answer, without its leases.
FetchResult clock_of(const FetchResult& r) {
    FetchResult out;
    out.now = r.now;
    out.now_micros = r.now_micros;
    out.next = r.next;
    return out;
}

}  // namespace

std::uint64_t FetchShare::rounds_sent() const {
    std::lock_guard lock(mutex_);
    return sent_;
}

std::size_t FetchShare::waiting() const {
    std::lock_guard lock(mutex_);
    return waiting_.size();
}

FetchShare::Share FetchShare::fetch(std::size_t want, Duration visibility, std::uint64_t trigger,
                                    const Call& call) {
    Request me;
    me.want = want;
    me.visibility = visibility;
    std::unique_lock lock(mutex_);
    bool queued = false;
    // Once a leader took this request into its round, only that round's end answers it.
    while (!me.done) {
        if (!me.taken) {
            if (quiet_ && quiet_->round > trigger) {
                if (queued) waiting_.remove(&me);
                return Share{clock_of(quiet_->clock), quiet_->received, false};
            }
            if (!in_flight_) {
                if (queued) waiting_.remove(&me);
                lead(lock, me, call);
                break;
            }
            if (!queued) {
                waiting_.push_back(&me);
                queued = true;
            }
        }
        rounds_cv_.wait(lock);
    }
    if (me.error) std::rethrow_exception(me.error);
    return std::move(me.share);
}

void FetchShare::lead(std::unique_lock<std::mutex>& lock, Request& leader, const Call& call) {
    // The waiting requests with the leader's visibility, in arrival order, while the round
    // stays within one call's batch. Others wait for a round of their own.
    std::vector<Request*> round{&leader};
    std::size_t total = leader.want;
    for (auto it = waiting_.begin(); it != waiting_.end();) {
        Request* r = *it;
        if (r->visibility == leader.visibility && total + r->want <= kMaxBatch) {
            total += r->want;
            r->taken = true;
            round.push_back(r);
            it = waiting_.erase(it);
        } else {
            ++it;
        }
    }
    const std::uint64_t index = ++sent_;
    in_flight_ = true;
    lock.unlock();

    FetchResult answer;
    std::exception_ptr error;
    try {
        answer = call(total, leader.visibility);
    } catch (...) {
        error = std::current_exception();
    }
    const auto received = Steady::now();

    lock.lock();
    in_flight_ = false;
    // In arrival order, each at most what it asked for: the call leased at most their sum.
    auto next = answer.deliveries.begin();
    for (Request* r : round) {
        r->done = true;
        r->error = error;
        if (error) continue;
        r->share.result = clock_of(answer);
        r->share.received = received;
        r->share.called = true;
        const auto n = static_cast<std::ptrdiff_t>(std::min<std::size_t>(
            r->want, static_cast<std::size_t>(answer.deliveries.end() - next)));
        r->share.result.deliveries.assign(std::make_move_iterator(next),
                                          std::make_move_iterator(next + n));
        next += n;
    }
    if (!error) {
        leader.share.result.dead_lettered = std::move(answer.dead_lettered);
        const bool more_due = answer.next && *answer.next <= answer.now;
        if (!more_due && (!quiet_ || quiet_->round < index)) {
            quiet_ = Quiet{index, clock_of(answer), received};
        }
    }
    rounds_cv_.notify_all();
}

}  // namespace delayq::detail
