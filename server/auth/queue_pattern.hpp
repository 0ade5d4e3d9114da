#pragma once

#include <delayq/queue_pattern.hpp>

namespace delayq::server {

// The library's pattern: tokens and `delayq acl` read queue patterns the same way.
using QueuePattern = delayq::QueuePattern;

}  // namespace delayq::server
