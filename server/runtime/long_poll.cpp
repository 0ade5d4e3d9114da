#include "runtime/long_poll.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <delayq/error.hpp>
#include <delayq/limits.hpp>
#include <iterator>
#include <list>
#include <optional>
#include <utility>
#include <vector>

#include "runtime/long_poll_parts.hpp"

namespace delayq::server::runtime {

namespace {

// One fetch: the library leases at most a batch a call.
constexpr std::size_t kMaxPoll = kMaxBatch;

}  // namespace

LongPollHub::LongPollHub(Client client, Post post, LongPollOptions options)
    : client_(std::move(client)), post_(std::move(post)), options_(options) {
    timer_ = std::thread([this] { run_timer(); });
}

LongPollHub::~LongPollHub() { stop(); }

LongPollHub::PollId LongPollHub::wait(PollRequest request) {
    if (request.max < 1 || request.max > kMaxPoll) {
        throw InvalidArgument("max must be 1 to " + std::to_string(kMaxPoll));
    }
    auto poll = std::make_shared<Poll>();
    poll->queue = std::move(request.queue);
    poll->token = std::move(request.token);
    poll->max = request.max;
    poll->visibility = request.visibility;
    poll->done = std::move(request.done);
    // Waiters released to make room are stopped once the lock is released.
    Retirement retired(*this);
    std::unique_lock lock(mu_);
    if (stopping_) {
        lock.unlock();
        finish({{poll, PollAnswer{}}});
        return 0;
    }
    Slot* slot = nullptr;
    try {
        const auto use = tokens_.find(poll->token);
        if (!poll->token.empty() && use != tokens_.end() &&
            use->second.polls >= options_.max_polls_per_token) {
            throw TooManyPolls("this token has as many long-polls waiting as it may (" +
                               std::to_string(options_.max_polls_per_token) +
                               "); try again when one was answered");
        }
        // Throws for a bad name or a cap, before anything is kept.
        slot = &slot_for(poll->queue, poll->token, retired.slots);
    } catch (const TooManyPolls&) {
        ++refused_;
        throw;
    }
    if (slot->idle) {
        idle_.erase(slot->idle_pos);
        slot->idle = false;
    }
    poll->id = next_id_++;
    poll->where = slot->waiting.insert(slot->waiting.end(), poll);
    polls_.emplace(poll->id, poll);
    if (!poll->token.empty()) ++tokens_[poll->token].polls;
    const bool earliest = deadlines_.empty() || request.deadline < deadlines_.begin()->first;
    deadlines_.emplace(request.deadline, poll->id);
    if (earliest) timer_cv_.notify_one();
    if (!slot->fetching && slot->drained_epoch != slot->waiter->epoch()) {
        try {
            start_fetching(poll->queue, *slot);
        } catch (...) {
            remove(*slot, poll);  // refused whole: its `done` is never called
            throw;
        }
    }
    return poll->id;
}

void LongPollHub::cancel(PollId id) {
    std::lock_guard lock(mu_);
    const auto it = polls_.find(id);
    if (it == polls_.end()) return;
    const std::shared_ptr<Poll> poll = it->second;
    if (poll->in_fetch) {
        poll->cancelled = true;
        return;
    }
    remove(*slots_.at(poll->queue), poll);
}

void LongPollHub::on_fire(const std::string& queue) {
    std::lock_guard lock(mu_);
    ++fires_;
    if (stopping_) return;
    const auto it = slots_.find(queue);
    if (it == slots_.end()) return;
    Slot& slot = *it->second;
    slot.drained_epoch.reset();
    if (slot.fetching) {
        slot.fired = true;
    } else if (!slot.waiting.empty()) {
        try {
            start_fetching(queue, slot);
        } catch (const std::exception& e) {
            // The workers are full: the polls wait for the next firing or their deadline.
            spdlog::warn("long-polls on {}: a fetch could not be started: {}", queue, e.what());
        }
    }
}

void LongPollHub::start_fetching(const std::string& queue, Slot& slot) {
    slot.fetching = true;
    try {
        post_([this, queue] { run_fetches(queue); });
    } catch (...) {
        slot.fetching = false;
        settle(slot);
        throw;
    }
}

// Fetches for the waiting polls, oldest first, until a fetch leaves nothing due and the waiter
// has not fired since it began. One fetch serves the oldest poll and those after it that ask for
// the same visibility, up to kMaxPoll messages in all: a send that wakes many polls costs one
// script call, not one per poll (issue 28: calls that carry one message). The deliveries go out
// in order, each poll taking up to its max, so the oldest is served first.
void LongPollHub::run_fetches(const std::string& queue) {
    for (;;) {
        std::unique_lock lock(mu_);
        Slot& slot = *slots_.at(queue);
        if (stopping_ || slot.waiting.empty()) {
            slot.fetching = false;
            settle(slot);
            idle_cv_.notify_all();
            return;
        }
        std::vector<std::shared_ptr<Poll>> group;
        std::size_t wanted = 0;
        const Duration visibility = slot.waiting.front()->visibility;
        for (const auto& p : slot.waiting) {
            if (p->visibility != visibility || wanted + p->max > kMaxPoll) break;
            p->in_fetch = true;
            wanted += p->max;
            group.push_back(p);
        }
        slot.fired = false;
        const std::uint64_t seen = slot.waiter->epoch();
        Leases leases = slot.leases;
        Waiter& waiter = *slot.waiter;
        ++fetches_;
        lock.unlock();

        std::vector<Delivery> deliveries;
        std::exception_ptr error;
        bool drained = true;
        try {
            FetchResult result = leases.fetch(wanted, visibility);
            waiter.note_fetch(result);
            drained = result.deliveries.size() < wanted;
            deliveries = std::move(result.deliveries);
        } catch (...) {
            error = std::current_exception();
        }

        Finished finished;
        lock.lock();
        auto next = deliveries.begin();
        for (const auto& poll : group) {
            poll->in_fetch = false;
            PollAnswer answer{{}, error};
            const auto take = std::min<std::size_t>(poll->max, deliveries.end() - next);
            answer.deliveries.assign(std::make_move_iterator(next),
                                     std::make_move_iterator(next + take));
            next += take;
            if (!answer.deliveries.empty() || error || poll->expired || poll->cancelled ||
                stopping_) {
                remove(slot, poll);
                finished.emplace_back(poll, std::move(answer));
            }
        }
        if (error) {
            // Redis failed: every poll of the queue would fail the same way now.
            for (const auto& p : std::list(slot.waiting)) {
                finished.emplace_back(p, PollAnswer{{}, error});
                remove(slot, p);
            }
        }
        const bool idle = error || (drained && !slot.fired && waiter.epoch() == seen);
        if (idle) {
            if (!error) slot.drained_epoch = seen;
            slot.fetching = false;
            settle(slot);
            idle_cv_.notify_all();
        }
        lock.unlock();
        finish(std::move(finished));
        if (idle) return;
    }
}

void LongPollHub::remove(Slot& slot, const std::shared_ptr<Poll>& poll) {
    if (polls_.erase(poll->id) == 0) return;
    slot.waiting.erase(poll->where);
    if (!poll->token.empty()) {
        const auto use = tokens_.find(poll->token);
        if (use != tokens_.end() && --use->second.polls == 0 && use->second.queues == 0) {
            tokens_.erase(use);
        }
    }
    settle(slot);
}

void LongPollHub::finish(Finished&& finished) {
    for (auto& [poll, answer] : finished) {
        std::vector<Delivery> unanswered;
        if (poll->cancelled) {
            unanswered = std::move(answer.deliveries);
        } else {
            const std::vector<Delivery> copy = answer.deliveries;
            bool answered = false;
            try {
                answered = poll->done(std::move(answer));
            } catch (const std::exception& e) {
                spdlog::warn("long-poll on {}: its answer failed: {}", poll->queue, e.what());
            }
            if (!answered) unanswered = copy;
        }
        if (unanswered.empty()) continue;
        // Handed back unstarted, so the next poll gets them at once; should this fail, the
        // leases lapse and the messages come back anyway.
        try {
            std::vector<Lease> held;
            held.reserve(unanswered.size());
            for (const Delivery& d : unanswered) held.push_back(d.lease());
            client_.leases(poll->queue).release(held);  // a poll takes at most kMaxBatch
        } catch (const std::exception& e) {
            spdlog::warn(
                "long-poll on {}: releasing {} unanswered leases failed ({}); they "
                "come back when they lapse",
                poll->queue, unanswered.size(), e.what());
        }
    }
}

void LongPollHub::run_timer() {
    using Clock = std::chrono::steady_clock;
    std::unique_lock lock(mu_);
    while (!stopped_) {
        std::optional<Clock::time_point> next;
        if (!deadlines_.empty()) next = deadlines_.begin()->first;
        if (!idle_.empty()) {
            const auto release_at = idle_.front()->idle_since + options_.idle_release;
            next = next ? std::min(*next, release_at) : release_at;
        }
        if (!next) {
            timer_cv_.wait(lock);
            continue;
        }
        if (Clock::now() < *next) {
            timer_cv_.wait_until(lock, *next);
            continue;
        }
        Finished finished;
        Slots retired;
        const auto now = Clock::now();
        while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
            const PollId id = deadlines_.begin()->second;
            deadlines_.erase(deadlines_.begin());
            const auto it = polls_.find(id);
            if (it == polls_.end()) continue;  // answered before its deadline
            const std::shared_ptr<Poll> poll = it->second;
            if (poll->in_fetch) {
                poll->expired = true;  // the fetch answers it with whatever it gets
                continue;
            }
            remove(*slots_.at(poll->queue), poll);
            finished.emplace_back(poll, PollAnswer{});
        }
        while (!idle_.empty() && idle_.front()->idle_since + options_.idle_release <= now) {
            retired.push_back(release(*idle_.front()));
        }
        lock.unlock();
        finish(std::move(finished));
        retire(std::move(retired));
        lock.lock();
    }
}

void LongPollHub::stop() {
    Finished finished;
    {
        std::unique_lock lock(mu_);
        if (stopping_) return;
        stopping_ = true;
        for (auto& [queue, slot] : slots_) {
            for (const auto& p : std::list(slot->waiting)) {
                if (p->in_fetch) continue;  // its fetch answers it with what it got
                finished.emplace_back(p, PollAnswer{});
                remove(*slot, p);
            }
        }
    }
    finish(std::move(finished));
    std::unique_lock lock(mu_);
    idle_cv_.wait(lock, [this] {
        for (const auto& [queue, slot] : slots_) {
            if (slot->fetching) return false;
        }
        return true;
    });
    stopped_ = true;
    timer_cv_.notify_all();
    Slots retired;
    while (!slots_.empty()) retired.push_back(release(*slots_.begin()->second));
    lock.unlock();
    if (timer_.joinable()) timer_.join();
    // Outside mu_: a callback under way may be waiting for it, and reset() waits for the
    // callback. One step: a waiter's stop only unregisters it from the client's shared timer and
    // subscriber.
    retire(std::move(retired));
}

LongPollStats LongPollHub::stats() const {
    LongPollStats out;
    std::vector<std::shared_ptr<const Waiter>> waiters;
    {
        std::lock_guard lock(mu_);
        out.fetches = fetches_;
        out.fires = fires_;
        out.waiting = polls_.size();
        out.queues = slots_.size();
        out.idle = idle_.size();
        out.released = released_;
        out.refused = refused_;
        out.waiters = retired_;
        for (const auto& [queue, slot] : slots_) {
            if (slot->fetching) ++out.fetching;
            waiters.push_back(slot->waiter);
        }
    }
    // Outside mu_: a waiter's stop holds its lock while its callback may wait for mu_.
    for (const auto& w : waiters) {
        const WaiterStats s = w->stats();
        out.waiters.fired += s.fired;
        out.waiters.signals += s.signals;
        out.waiters.subscriptions += s.subscriptions;
        out.waiters.redis_errors += s.redis_errors;
    }
    return out;
}

}  // namespace delayq::server::runtime
