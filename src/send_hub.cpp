#include "send_hub.hpp"

#include <string>
#include <system_error>

#include "delayq/error.hpp"

namespace delayq::detail {

SendHub::~SendHub() {
    for (auto& [node, flusher] : flushers_) flusher->request_stop();
    for (auto& [node, flusher] : flushers_) flusher->join();
}

SendFlusher& SendHub::flusher_for(ConnectionPool& node, bool durable) {
    std::lock_guard lock(mutex_);
    const auto key = std::make_pair(&node, durable);
    auto& flusher = flushers_[key];
    if (!flusher) {
        auto made = std::make_unique<SendFlusher>(node);
        try {
            made->start();
        } catch (const std::system_error& e) {
            flushers_.erase(key);
            throw Error(std::string("cannot start the thread that sends asynchronously: ") +
                        e.what());
        }
        flusher = std::move(made);
    }
    return *flusher;
}

}  // namespace delayq::detail
