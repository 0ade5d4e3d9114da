#include "delayq/delivery.hpp"

#include <utility>

namespace delayq {

Delivery::Delivery(std::string queue, std::string id, std::string payload, std::uint64_t token,
                   int attempt, int max_attempts, TimePoint due, TimePoint delivered_at)
    : queue_(std::move(queue)),
      id_(std::move(id)),
      payload_(std::move(payload)),
      token_(token),
      attempt_(attempt),
      max_attempts_(max_attempts),
      due_(due),
      delivered_at_(delivered_at) {}

}  // namespace delayq
