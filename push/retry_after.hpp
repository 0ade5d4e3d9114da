#pragma once

// The Retry-After header of an answer (RFC 9110, section 10.2.3): how long the receiver asks a
// pusher to wait before it tries the message again.
#include <chrono>
#include <optional>
#include <string_view>

namespace delayq::push {

// The longest wait a Retry-After sets. A receiver's wish about its own load is honoured, but a
// day at most: a larger one (a typo, a date years ahead) would park the message far past any
// sensible retry schedule. The Standard Webhooks specification's own schedule has no step
// longer than a day either.
inline constexpr std::chrono::milliseconds kMaxRetryAfter = std::chrono::hours{24};

// The wait `value` asks for, from `now`: delay-seconds ("120"), or an HTTP-date: the
// IMF-fixdate ("Sun, 06 Nov 1994 08:49:37 GMT") and the obsolete RFC 850 ("Sunday, 06-Nov-94
// 08:49:37 GMT") and asctime ("Sun Nov  6 08:49:37 1994") forms, whose names are read in any
// case and whose weekday is not checked against the date. Spaces and tabs around the value are
// ignored. A date already past gives 0; a wait over kMaxRetryAfter gives kMaxRetryAfter;
// anything else (a sign, a fraction, a bad date) gives nullopt, and the pusher's own backoff
// applies.
std::optional<std::chrono::milliseconds> parse_retry_after(
    std::string_view value, std::chrono::system_clock::time_point now);

}  // namespace delayq::push
