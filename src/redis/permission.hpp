#pragma once

#include <string_view>

#include "redis/reply.hpp"

namespace delayq::detail {

// Whether Redis refused a command for the ACL user's permissions: a NOPERM reply, or a script
// that ran a command or touched a key its user may not.
bool is_permission_error(const Reply& reply);

// Throws PermissionError naming `command` (and `detail`, such as the script's name) when
// `reply` is a permission refusal; does nothing otherwise.
void check_permission(const Reply& reply, std::string_view command, std::string_view detail = {});

}  // namespace delayq::detail
