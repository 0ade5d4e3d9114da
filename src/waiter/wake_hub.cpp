#include "waiter/wake_hub.hpp"

namespace delayq::detail {

WakeHub::WakeHub(ClientCore& client) : subscriber_(client) {
    timer_.start();
    subscriber_.start();
}

WakeHub::~WakeHub() {
    // Both asked first, so that they wind down together.
    subscriber_.request_stop();
    timer_.request_stop();
    subscriber_.join();
    timer_.join();
}

WakeSubscriber& WakeHub::subscriber_for(std::string_view /*channel*/) { return subscriber_; }

WakeHubStats WakeHub::stats() const {
    return WakeHubStats{subscriber_.channels(), timer_.scheduled(), subscriber_.connections(),
                        subscriber_.redis_errors()};
}

}  // namespace delayq::detail
