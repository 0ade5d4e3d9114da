#pragma once

#include <string>
#include <string_view>

namespace delayq::detail {

// The value of `field` in an INFO reply ("field:value" lines, ended by \r\n or \n); empty when
// the field is absent. The client's server checks and delayq-bench's measurements read INFO
// through this one parser.
std::string info_field(std::string_view info, std::string_view field);

// Whether a maxmemory-policy may evict a queue's keys when memory runs out: anything but
// noeviction (an empty one, an INFO without the field, is not known to).
bool evicting_policy(std::string_view policy);

}  // namespace delayq::detail
