#include "redis/permission.hpp"

#include <string>

#include "delayq/error.hpp"

namespace delayq::detail {

bool is_permission_error(const Reply& reply) {
    if (!reply.is_error()) return false;
    // Inside a script Redis 7 says so in an ERR reply, and names no command.
    return reply.str.starts_with("NOPERM") ||
           reply.str.find("The user executing the script can't") != std::string::npos;
}

void check_permission(const Reply& reply, std::string_view command, std::string_view detail) {
    if (!is_permission_error(reply)) return;
    std::string what = "permission denied: Redis refused " + std::string(command);
    if (!detail.empty()) what += " (" + std::string(detail) + ")";
    what += " to this ACL user (delayq acl prints what each role needs): " + reply.str;
    throw PermissionError(std::string(command), what);
}

}  // namespace delayq::detail
