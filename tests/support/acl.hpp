#pragma once

#include <string>
#include <vector>

#include "support/redis_server.hpp"

namespace delayq::test {

// Creates an ACL user with `password` that may use every key, channel and command, then applies
// the `extra` rules (such as "-@dangerous").
inline RawReply add_acl_user(const RedisServer& server, const std::string& user,
                             const std::string& password,
                             const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"ACL", "SETUSER", user, "on", ">" + password};
    args.insert(args.end(), {"~*", "&*", "+@all"});
    args.insert(args.end(), extra.begin(), extra.end());
    return server.command(args);
}

}  // namespace delayq::test
