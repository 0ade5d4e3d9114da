#include "delayq/delivery.hpp"

#include <utility>

#include "delayq/error.hpp"
#include "keys.hpp"
#include "validate.hpp"

namespace delayq {

std::string Lease::to_string() const { return detail::lease_member(token_, id_); }

std::optional<Lease> Lease::parse(std::string_view text) {
    auto parts = detail::parse_lease(text);
    if (!parts) return std::nullopt;
    try {
        detail::validate_id(parts->second);
    } catch (const InvalidArgument&) {
        return std::nullopt;
    }
    return Lease(std::string(parts->second), parts->first);
}

Delivery::Delivery(std::string queue, Lease lease, std::string payload, int attempt,
                   int max_attempts, TimePoint due, TimePoint delivered_at, std::string last_error)
    : queue_(std::move(queue)),
      lease_(std::move(lease)),
      payload_(std::move(payload)),
      attempt_(attempt),
      max_attempts_(max_attempts),
      due_(due),
      delivered_at_(delivered_at),
      last_error_(std::move(last_error)) {}

}  // namespace delayq
