#include "runtime/queue_handles.hpp"

#include <optional>
#include <string>
#include <utility>

namespace delayq::server::runtime {

QueueHandles::QueueHandles(Client client, std::size_t capacity)
    : client_(std::move(client)), capacity_(capacity == 0 ? 1 : capacity) {}

namespace {

// A plain handle's key is the name alone; a durable one's adds its setting after a byte no
// queue name holds.
std::string key_of(std::string_view name, const Durability& durability) {
    std::string key(name);
    if (durability.replicas == 0) return key;
    key += ' ';
    key += std::to_string(durability.replicas);
    key += ' ';
    key += std::to_string(durability.timeout.count());
    return key;
}

}  // namespace

Queue QueueHandles::get(std::string_view name, const Durability& durability) {
    // Dropped outside the lock: the last copy of a Queue waits for its queued sends.
    std::optional<Queue> dropped;
    std::lock_guard lock(mutex_);
    const std::string key = key_of(name, durability);
    if (auto it = entries_.find(key); it != entries_.end()) {
        order_.splice(order_.begin(), order_, it->second.place);
        return it->second.queue;
    }
    // Validates the name and the durability before anything is kept.
    Queue made = client_.queue(name, QueueOptions{.durability = durability});
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
