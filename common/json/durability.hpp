#pragma once

#include <delayq/options.hpp>

#include "json/fields.hpp"

// The durability fields of the service's send bodies (docs/json.md): "wait_replicas" (0 to
// kMaxWaitReplicas) and "wait_timeout" (a duration, more than 0 and at most kMaxWaitTimeout,
// required with replicas). Beside a message's fields in a single send, beside "messages" in a
// batch: they set how the whole request is sent, not a message.
namespace delayq::json {

// Removes the fields from `body` (an object; anything else is left for the message's own
// parser to refuse) and returns them as a Durability: none without them. Throws
// InvalidArgument naming the field.
Durability take_durability(Json& body);

}  // namespace delayq::json
