#pragma once

#include <cstddef>
#include <string_view>

#include "json/fields.hpp"

// Request bodies (and the CLI's message files) as JSON, parsed within bounds: a body's bytes are
// bounded by its route, but a document of those bytes can cost many times them in memory (a
// megabyte of "[" is a million nested arrays), so nesting and the count of values are bounded
// too, and parsing stops at the first value past them.
namespace delayq::json {

struct JsonBounds {
    // Nested objects and arrays: a batch is {"messages": [{..., "backoff"?: {...}}]}.
    std::size_t max_depth = 4;
    // Values, keys included: a batch of 1000 messages of a dozen fields each, with room.
    std::size_t max_values = 32'000;
};

// One JSON value. Throws InvalidArgument saying why for text that is not JSON, nests deeper or
// holds more values than `bounds`, or has an object with a key twice (whose value would be
// ambiguous: parsers differ on which one wins).
Json parse_json(std::string_view text, const JsonBounds& bounds = {});

}  // namespace delayq::json
