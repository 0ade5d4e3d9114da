#include "queue_registry.hpp"

#include <algorithm>
#include <iterator>

#include "queue_core.hpp"

namespace delayq::detail {

std::shared_ptr<QueueCore> QueueRegistry::get(std::string_view name, const QueueOptions& options,
                                              const Make& make) {
    // Declared before the lock, so released after it: were it the last handle, its line would
    // wait for its queued sends, and other callers should not wait with it.
    std::shared_ptr<QueueCore> live;
    std::lock_guard lock(mutex_);
    const auto it = cores_.find(std::string(name));
    if (it != cores_.end() && (live = it->second.lock())) {
        // Another part of the program chose other options: it keeps its own line. Durability
        // is one of them, so a durable line's calls (each followed by its WAIT) never carry a
        // plain caller's message, nor a plain line's a durable caller's.
        return live->options() == options ? live : make();
    }
    std::shared_ptr<QueueCore> made = make();
    cores_.insert_or_assign(std::string(name), made);
    if (cores_.size() >= sweep_at_) sweep();
    return made;
}

void QueueRegistry::sweep() {
    std::erase_if(cores_, [](const auto& entry) { return entry.second.expired(); });
    sweep_at_ = std::max<std::size_t>(64, cores_.size() * 2);
}

}  // namespace delayq::detail
