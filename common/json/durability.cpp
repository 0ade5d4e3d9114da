#include "json/durability.hpp"

#include <delayq/error.hpp>
#include <delayq/limits.hpp>
#include <delayq/validate.hpp>
#include <string>

namespace delayq::json {

Durability take_durability(Json& body) {
    Durability d;
    if (!body.is_object()) return d;
    const auto replicas = body.find("wait_replicas");
    const auto timeout = body.find("wait_timeout");
    if (replicas == body.end() && timeout == body.end()) return d;
    if (replicas == body.end()) throw InvalidArgument("wait_timeout needs wait_replicas");
    d.replicas = static_cast<int>(
        count_field(*replicas, "wait_replicas", 0, static_cast<std::uint64_t>(kMaxWaitReplicas)));
    if (timeout != body.end()) d.timeout = duration_field(*timeout, "wait_timeout");
    if (d.replicas > 0 && d.timeout.count() == 0) {
        throw InvalidArgument(
            "wait_timeout must be more than 0 with wait_replicas (WAIT 0 waits forever)");
    }
    if (d.timeout > kMaxWaitTimeout) {
        throw InvalidArgument("wait_timeout must be at most " +
                              std::to_string(kMaxWaitTimeout.count()) + " ms");
    }
    validate_durability(d);
    body.erase("wait_replicas");
    body.erase("wait_timeout");
    return d;
}

}  // namespace delayq::json
