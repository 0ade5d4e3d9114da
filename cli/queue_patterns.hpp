#pragma once

#include <delayq/queue_pattern.hpp>
#include <string>
#include <vector>

namespace delayq::cli {

// --queues of `token new` and `acl`: one pattern each (a queue name, a prefix ending in *, or *),
// at least one. UsageError naming the first bad one.
std::vector<QueuePattern> parse_queue_patterns(const std::vector<std::string>& texts);

}  // namespace delayq::cli
