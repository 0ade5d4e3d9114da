#pragma once

#include <optional>
#include <string>
#include <string_view>

// The Origin header of browsers (RFC 6454): `scheme://host[:port]`, or `null` for pages that
// have none (files, sandboxed frames, some redirects).
namespace delayq::server::http {

// The host[:port] of an http or https origin, lower case; nullopt for `null` or anything else.
std::optional<std::string> origin_authority(std::string_view origin);

// An origin as compared: lower case, without a trailing '/'.
std::string normalize_origin(std::string_view origin);

// Checks a value of --allowed-origin: an http or https origin without a path. Throws
// InvalidArgument saying what is wrong.
void check_allowed_origin(std::string_view origin);

}  // namespace delayq::server::http
