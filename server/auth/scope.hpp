#pragma once

#include <optional>
#include <string_view>

namespace delayq::server {

// What a token may do (docs/http.md, Auth).
enum class Scope {
    kSend,     // send, batch, cancel, reschedule: a producer cancels its own timers
    kConsume,  // leases, ack, nack, reject, extend, release
    kRead,     // every GET and /metrics
    kAdmin,    // dead-letter requeue and purge, settings, pause, delete; implies kRead
};

inline constexpr Scope kAllScopes[] = {Scope::kSend, Scope::kConsume, Scope::kRead, Scope::kAdmin};

std::string_view scope_name(Scope scope);
// nullopt for a name that is no scope.
std::optional<Scope> parse_scope(std::string_view name);

}  // namespace delayq::server
