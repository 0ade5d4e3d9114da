#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace delayq::server {

// What a token may do (docs/http.md, Auth).
enum class Scope {
    kSend,     // send, batch, cancel, reschedule: a producer cancels its own timers
    kConsume,  // leases, ack, nack, reject, extend, release
    kRead,     // every GET and /metrics
    // Add, change, pause, resume, trigger and remove recurring schedules: a deploy that declares
    // its schedules needs no right to purge dead letters or delete queues.
    kSchedule,
    kAdmin,  // dead-letter requeue and purge, settings, pause, delete; implies kRead, kSchedule
};

inline constexpr Scope kAllScopes[] = {Scope::kSend, Scope::kConsume, Scope::kRead,
                                       Scope::kSchedule, Scope::kAdmin};

std::string_view scope_name(Scope scope);
// "send, consume, read, schedule, admin": for errors and help that list them.
std::string scope_names();
// nullopt for a name that is no scope.
std::optional<Scope> parse_scope(std::string_view name);

}  // namespace delayq::server
