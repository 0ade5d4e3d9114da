#include "http/body_budget.hpp"

#include <vector>

namespace delayq::server::http {

BodyBudget::Ticket BodyBudget::reserve(std::size_t bytes, std::function<void()> granted) {
    std::lock_guard lock(mutex_);
    if (waiting_.empty() && in_flight_ + bytes <= capacity_) {
        in_flight_ += bytes;
        return 0;
    }
    const Ticket ticket = next_ticket_++;
    waiting_.push_back({ticket, bytes, std::move(granted)});
    return ticket;
}

bool BodyBudget::cancel(Ticket ticket) {
    std::lock_guard lock(mutex_);
    for (auto it = waiting_.begin(); it != waiting_.end(); ++it) {
        if (it->ticket == ticket) {
            waiting_.erase(it);
            return true;
        }
    }
    return false;
}

bool BodyBudget::time_out(Ticket ticket) {
    if (!cancel(ticket)) return false;
    std::lock_guard lock(mutex_);
    ++timed_out_;
    return true;
}

std::uint64_t BodyBudget::timed_out() const {
    std::lock_guard lock(mutex_);
    return timed_out_;
}

void BodyBudget::release(std::size_t bytes) {
    std::vector<std::function<void()>> granted;
    {
        std::lock_guard lock(mutex_);
        in_flight_ -= bytes;
        while (!waiting_.empty() && in_flight_ + waiting_.front().bytes <= capacity_) {
            in_flight_ += waiting_.front().bytes;
            granted.push_back(std::move(waiting_.front().granted));
            waiting_.pop_front();
        }
    }
    for (auto& g : granted) g();
}

std::size_t BodyBudget::in_flight() const {
    std::lock_guard lock(mutex_);
    return in_flight_;
}

std::size_t BodyBudget::waiting() const {
    std::lock_guard lock(mutex_);
    return waiting_.size();
}

}  // namespace delayq::server::http
