#include "runtime/queue_handles.hpp"

#include <optional>
#include <utility>

namespace delayq::server::runtime {

QueueHandles::QueueHandles(Client client, std::size_t capacity)
    : client_(std::move(client)), capacity_(capacity == 0 ? 1 : capacity) {}

Queue QueueHandles::get(std::string_view name) {
    // Dropped outside the lock: the last copy of a Queue waits for its queued sends.
    std::optional<Queue> dropped;
    std::lock_guard lock(mutex_);
    const std::string key(name);
    if (auto it = entries_.find(key); it != entries_.end()) {
        order_.splice(order_.begin(), order_, it->second.place);
        return it->second.queue;
    }
    Queue made = client_.queue(name);  // validates the name before anything is kept
    order_.push_front(key);
    entries_.emplace(key, Entry{made, order_.begin()});
    if (entries_.size() > capacity_) {
        auto oldest = entries_.find(order_.back());
        dropped.emplace(std::move(oldest->second.queue));
        entries_.erase(oldest);
        order_.pop_back();
    }
    return made;
}

void QueueHandles::clear() {
    std::unordered_map<std::string, Entry> dropped;
    {
        std::lock_guard lock(mutex_);
        dropped.swap(entries_);
        order_.clear();
    }
}

}  // namespace delayq::server::runtime
