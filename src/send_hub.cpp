#include "send_hub.hpp"

#include <string>
#include <system_error>

#include "delayq/error.hpp"

namespace delayq::detail {

SendHub::~SendHub() {
    if (!flusher_) return;
    flusher_->request_stop();
    flusher_->join();
}

SendFlusher& SendHub::flusher_for(std::string_view /*queue*/) {
    std::lock_guard lock(mutex_);
    if (!flusher_) {
        auto made = std::make_unique<SendFlusher>(pool_);
        try {
            made->start();
        } catch (const std::system_error& e) {
            throw Error(std::string("cannot start the thread that sends asynchronously: ") +
                        e.what());
        }
        flusher_ = std::move(made);
    }
    return *flusher_;
}

}  // namespace delayq::detail
