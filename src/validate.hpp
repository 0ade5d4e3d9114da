#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "delayq/options.hpp"
#include "delayq/queue_admin.hpp"
#include "shared_constants.hpp"  // the limits (src/shared_constants.txt)

namespace delayq::detail {

// The longest durations a Consumer accepts for its timers (100 years of 365 days).
inline constexpr std::int64_t kMaxTimerMs = 3'153'600'000'000;

// Each throws InvalidArgument with a message that names the problem.
// A name or id: 1..max_bytes of printable ASCII without braces (a Redis Cluster hash tag), and
// without spaces unless allowed; `what` starts the message ("queue name must not be empty").
void validate_text(std::string_view text, std::string_view what, bool allow_space,
                   std::size_t max_bytes);
void validate_queue_name(std::string_view name);
// Ids may contain spaces and colons; not braces, control characters or bytes >= 0x7f.
void validate_id(std::string_view id);
void validate_payload(std::string_view payload, std::size_t max_bytes);
// A delay from now: 0 .. kMaxTimeMs ms.
std::int64_t validate_delay(Duration delay, std::string_view what);
// An absolute time as unix ms: 0 .. kMaxTimeMs.
std::int64_t validate_time(TimePoint at, std::string_view what);
std::int64_t validate_visibility(Duration visibility);
void validate_send(const SendOptions& options);
void validate_queue_options(const QueueOptions& options);
void validate_durability(const Durability& durability);
void validate_consumer_options(const ConsumerOptions& options);
// The longest a consumer or a waiter sleeps without a signal: 1 ms to 100 years.
void validate_idle_check(Duration idle_check);
void validate_backoff(const Backoff& backoff);
void validate_settings_update(const SettingsUpdate& update);

}  // namespace delayq::detail
