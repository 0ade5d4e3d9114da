#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "delayq/function_admin.hpp"
#include "delayq/leases.hpp"
#include "delayq/options.hpp"
#include "delayq/push.hpp"
#include "delayq/queue.hpp"
#include "delayq/queue_admin.hpp"
#include "delayq/schedules.hpp"

namespace delayq {

namespace detail {
class ClientCore;
}

// A handle on one Redis server or one Redis Cluster. Cheap to copy; copies share the connection
// pools. Thread-safe. URLs: redis://[user:password@]host[:port][/db], unix:///path/to/socket
// [?db=N], or the seeds of a cluster, redis://[user:password@]h1:p1,h2:p2 (rediss:// for TLS;
// [::1]:p for IPv6). Connecting is lazy: the first operation connects to the first seed that
// answers, which tells whether it is a cluster (then every queue's calls go to the primary
// serving its slot), and the first connection checks the server (Redis >= 7.0; a warning, or
// with refuse_evicting_server an error, for an evicting policy).
class Client {
  public:
    explicit Client(std::string_view url, ClientOptions options = {});

    // One queue in each of its three roles. Names are 1..200 bytes of printable ASCII, without
    // braces or spaces (message ids follow the same rule but may contain spaces); a bad name
    // throws InvalidArgument. A queue needs no creating: it exists once something is sent to it.
    // For producers: send, cancel, reschedule.
    Queue queue(std::string_view name, QueueOptions options = {}) const;
    // For operators: inspect, requeue and purge dead letters.
    QueueAdmin admin(std::string_view name) const;
    // For consumers that drive leases themselves, and for a Consumer.
    Leases leases(std::string_view name) const;
    // For whoever declares recurring schedules; a Scheduler claims their occurrences.
    Schedules schedules(std::string_view queue) const;
    // A queue's push target: set by an admin, read by everyone without its credentials, leased
    // from and recorded by pushers (docs/push.md).
    PushTargets push_targets(std::string_view queue) const;

    // Connects (if needed) and checks the server; throws what the first operation would.
    void ping() const;
    // The Redis server's clock (TIME), which every due time and delay is measured on: for
    // checks a front end makes before sending (validate_due).
    TimePoint server_time() const;

    // 32 random bytes shared by every process that asks this Redis database for them: made once
    // with SET NX (whoever comes first wins; the others read that one) and kept in the key
    // "dq:shared-secret", which no queue's keys or ACL pattern covers. The HTTP service seals
    // its leases with it. A user made by acl_commands needs acl_shared_secret_command too.
    // Throws ServerError when the key holds something else than a secret this made.
    std::string shared_secret() const;

    // Whether the operations run as the function library (FCALL) or as scripts (EVALSHA), and
    // why; connects and checks the library first if no operation has yet. On a Redis Cluster,
    // every primary: the first that runs scripts, with its host:port in the reason.
    EngineStatus engine() const;
    // The function library on the server, for operators: load ahead, status, prune.
    FunctionAdmin functions() const;

    // Version, memory, eviction policy and clients of each primary: one for a standalone
    // server, every primary of a cluster; one INFO each. Throws as any call does.
    std::vector<RedisNodeInfo> redis_info() const;

    // Names of the queues that have ever been sent to (found with SCAN, sorted).
    std::vector<std::string> queues() const;
    // Names of the queues that have recurring schedules, sorted: the registry key
    // "dq:schedules", which Schedules::add and upsert write (docs/design.md, Schedules).
    std::vector<std::string> schedule_queues() const;
    // Names of the queues that have a push target, sorted: the registry key "dq:pushtargets",
    // which PushTargets::set and remove write; pushers find their queues there.
    std::vector<std::string> push_queues() const;

  private:
    friend class Scheduler;
    std::shared_ptr<detail::ClientCore> core_;
};

}  // namespace delayq
