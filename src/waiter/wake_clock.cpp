#include "waiter/wake_clock.hpp"

#include <vector>

#include "log.hpp"
#include "validate.hpp"

namespace delayq::detail {

WakeClock::WakeClock(Duration idle_check) : idle_check_(idle_check), last_fire_(Steady::now()) {}

WakeClock::~WakeClock() { stop(); }

void WakeClock::start(WakeTimer& timer) {
    std::lock_guard lock(mutex_);
    if (timer_ != nullptr || stopped_) return;
    timer_ = &timer;
    reschedule();
}

void WakeClock::stop() {
    WakeTimer* timer = nullptr;
    {
        std::lock_guard lock(mutex_);
        stopped_ = true;
        timer = timer_;
    }
    waiters_cv_.notify_all();
    // Outside mutex_: the timer may be calling on_time, which takes it.
    if (timer != nullptr) timer->cancel(*this);
}

void WakeClock::reschedule() {
    if (timer_ == nullptr || stopped_) return;
    auto target = last_fire_ + idle_check_;
    if (next_) target = std::min(target, *next_);
    timer_->schedule(*this, target);
}

void WakeClock::aim(PreciseTime redis_now, Steady::time_point received) {
    // In microseconds (unix nanoseconds overflow), the local time rounded up: the offset errs
    // small by the reply's transit, so the clock fires late rather than early.
    offset_ = redis_now.time_since_epoch() -
              std::chrono::ceil<std::chrono::microseconds>(received.time_since_epoch());
}

void WakeClock::set_offset(PreciseTime redis_now, Steady::time_point received) {
    std::lock_guard lock(mutex_);
    aim(redis_now, received);
}

WakeClock::Steady::time_point WakeClock::to_steady(TimePoint t) const {
    using std::chrono::microseconds;
    const auto now = Steady::now();
    if (!offset_) return now;
    // Far-future times (up to the largest a message may have) would overflow nanoseconds.
    const microseconds ahead = microseconds(t.time_since_epoch()) - *offset_ -
                               std::chrono::floor<microseconds>(now.time_since_epoch());
    return now + std::min(ahead, microseconds(Duration(kMaxTimerMs)));
}

void WakeClock::note_locked(Steady::time_point due) {
    if (next_ && *next_ <= due) return;
    next_ = due;
    reschedule();
}

void WakeClock::note_due(TimePoint due) {
    std::lock_guard lock(mutex_);
    note_locked(to_steady(due));
}

void WakeClock::note_fetch(const FetchResult& result, Steady::time_point received) {
    std::lock_guard lock(mutex_);
    aim(PreciseTime(result.now) + result.now_micros, received);
    if (result.next) note_locked(to_steady(*result.next));
}

void WakeClock::wake_now() {
    std::lock_guard lock(mutex_);
    note_locked(Steady::now());
}

std::uint64_t WakeClock::epoch() const {
    std::lock_guard lock(mutex_);
    return epoch_;
}

bool WakeClock::wait(std::uint64_t seen, Steady::time_point deadline) {
    std::unique_lock lock(mutex_);
    waiters_cv_.wait_until(lock, deadline, [&] { return stopped_ || epoch_ != seen; });
    return !stopped_ && epoch_ != seen;
}

std::uint64_t WakeClock::add_callback(std::function<void()> callback) {
    std::lock_guard lock(mutex_);
    const std::uint64_t id = next_callback_++;
    callbacks_.emplace(id, std::make_shared<std::function<void()>>(std::move(callback)));
    return id;
}

void WakeClock::remove_callback(std::uint64_t id) {
    {
        std::lock_guard lock(mutex_);
        callbacks_.erase(id);
    }
    // A firing under way may still call it: wait for that round to end, unless this is it.
    if (firing_thread_.load() != std::this_thread::get_id()) {
        std::lock_guard firing(firing_mutex_);
    }
}

void WakeClock::on_time() noexcept {
    std::unique_lock lock(mutex_);
    if (stopped_) return;
    auto target = last_fire_ + idle_check_;
    if (next_) target = std::min(target, *next_);
    if (Steady::now() >= target) fire(lock);
    reschedule();
}

void WakeClock::fire(std::unique_lock<std::mutex>& lock) {
    const auto now = Steady::now();
    if (next_ && *next_ <= now) next_.reset();
    ++epoch_;
    last_fire_ = now;
    waiters_cv_.notify_all();
    if (callbacks_.empty()) return;
    std::vector<std::shared_ptr<std::function<void()>>> callbacks;
    callbacks.reserve(callbacks_.size());
    for (const auto& [id, callback] : callbacks_) callbacks.push_back(callback);
    lock.unlock();
    {
        std::lock_guard firing(firing_mutex_);
        firing_thread_.store(std::this_thread::get_id());
        for (const auto& callback : callbacks) {
            try {
                (*callback)();
            } catch (const std::exception& e) {
                log().error("a waiter's callback threw: {}", e.what());
            } catch (...) {
                log().error("a waiter's callback threw");
            }
        }
        firing_thread_.store(std::thread::id{});
    }
    lock.lock();
}

}  // namespace delayq::detail
