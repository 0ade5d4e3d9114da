#pragma once

#include <delayq/push.hpp>
#include <string>

#include "json/fields.hpp"

// The JSON shapes of push targets (docs/json.md, Push targets): `delayq push ... --json` and the
// service's push-target route write these. Never a header value or a secret: there is no
// reading shape for them.
namespace delayq::json {

// {"queue", "url", "method", "content_type", "header_names", "request_timeout_ms",
// "max_in_flight", "rate" (per second, 0: none), "secrets" (how many), "updated_ms",
// "last": null or {"at_ms", "status" (0: no answer), "error"}}
Json push_target_json(const std::string& queue, const PushTargetInfo& info);

// {"status": "created" | "updated" | "unchanged"}
Json push_set_json(PushSetStatus status);

}  // namespace delayq::json
