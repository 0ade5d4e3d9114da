#include "send_hub.hpp"

#include <string>
#include <system_error>

#include "delayq/error.hpp"

namespace delayq::detail {

SendHub::~SendHub() {
    for (auto& [node, flusher] : flushers_) flusher->request_stop();
    for (auto& [node, flusher] : flushers_) flusher->join();
}

SendFlusher& SendHub::flusher_for(ConnectionPool& node) {
    std::lock_guard lock(mutex_);
    auto& flusher = flushers_[&node];
    if (!flusher) {
        auto made = std::make_unique<SendFlusher>(node);
        try {
            made->start();
        } catch (const std::system_error& e) {
            flushers_.erase(&node);
            throw Error(std::string("cannot start the thread that sends asynchronously: ") +
                        e.what());
        }
        flusher = std::move(made);
    }
    return *flusher;
}

}  // namespace delayq::detail
