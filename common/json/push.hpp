#pragma once

#include <delayq/push.hpp>
#include <string>

#include "json/fields.hpp"

// The JSON shapes of push targets (docs/json.md, Push targets): `delayq push ... --json` and the
// service's push-target routes write these, and read the target a PUT sets. Never a header value
// or a secret in what they write: there is no reading shape for them.
namespace delayq::json {

// {"queue", "url", "method", "content_type", "header_names", "request_timeout_ms",
// "max_in_flight", "rate" (per second, 0: none), "secrets" (how many), "updated_ms",
// "last": null or {"at_ms", "status" (0: no answer), "error"}}
Json push_target_json(const std::string& queue, const PushTargetInfo& info);

// {"status": "created" | "updated" | "unchanged"}
Json push_set_json(PushSetStatus status);

// A whole target from a request body (PushTargetInput): "url" (required), and the optional
// "method" (any case), "content_type", "headers" ([{"name", "value"}...]), "request_timeout_ms",
// "max_in_flight", "rate" and "secrets" (["whsec_..."...]); an absent field takes PushTarget's
// default. Unknown fields are refused. Throws InvalidArgument naming the field, never quoting a
// header value or a secret. The types, counts and numeric bounds are checked here; what the
// URL, a header or a secret may say is validate_push_target's, the caller's.
PushTarget push_target_from_json(const Json& body);

}  // namespace delayq::json
