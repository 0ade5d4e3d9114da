#pragma once

#include <cstddef>
#include <string>

#include "delayq/leases.hpp"
#include "redis/reply.hpp"
#include "redis/script.hpp"

// fetch.lua's call and reply (the contract is in the script's header).
namespace delayq::detail::fetch_codec {

// Validates and builds the call; throws InvalidArgument.
ScriptArgs encode(std::size_t max_count, Duration visibility);

// The reply's payloads are moved out, not copied. Throws ServerError on another shape.
FetchResult decode(Reply reply, const std::string& queue);

}  // namespace delayq::detail::fetch_codec
