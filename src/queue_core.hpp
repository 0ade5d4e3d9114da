#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "client_core.hpp"
#include "codec/manage.hpp"
#include "codec/push.hpp"
#include "codec/schedule.hpp"
#include "codec/send.hpp"
#include "delayq/leases.hpp"
#include "delayq/queue_admin.hpp"
#include "fetch_share.hpp"
#include "keys.hpp"
#include "redis/connection.hpp"
#include "redis/routed_call.hpp"
#include "redis/script.hpp"
#include "scripts.hpp"
#include "send_coalescer.hpp"
#include "send_target.hpp"

namespace delayq::detail {

// One queue's operations, each one script call on a connection the caller provides: one from
// acquire() for Queue, QueueAdmin and Leases, dedicated ones from connect() for a Consumer's
// threads. Each is an encode, a script call and a decode (src/codec/); input is validated
// before any call. All the queue's keys share one hash slot, so in a cluster every call goes to
// the primary that serves it (run_routed follows the slot when it moves).
class QueueCore {
  public:
    QueueCore(std::shared_ptr<ClientCore> client, std::string name, QueueOptions options);

    const std::string& name() const { return name_; }
    const QueueOptions& options() const { return options_; }
    ClientCore& client() { return *client_; }
    SendCoalescer& coalescer() { return coalescer_; }
    // What this queue's Consumers of this Client share of their fetches.
    FetchShare& fetch_share() { return fetch_share_; }
    const SendTarget& send_target() const { return send_target_; }

    // A pooled connection to the node that serves the queue. A node that cannot be reached
    // makes a cluster or Sentinel client learn the topology again; when that names another
    // node (a failover already done), the connection is made there, else the ConnectionError
    // goes to the caller, who tries again as after any connection failure.
    ConnectionPool::Lease acquire();
    // A connection of the caller's own to that node; the same on failure.
    Connection connect();
    // Whether `conn` still reaches that node (false after the cluster moved the queue's slot).
    bool serves(const Connection& conn) { return client_->topology().serves(conn, slot_); }

    std::vector<SendResult> send(Connection& conn,
                                 std::span<const send_codec::MessageRef> messages);
    FetchResult fetch(Connection& conn, std::size_t max_count, Duration visibility);
    std::vector<LeaseResult> ack(Connection& conn, std::span<const Lease> leases);
    // Without a delay, the queue's backoff for the attempts made.
    LeaseResult nack(Connection& conn, const Lease& lease, std::optional<Duration> delay,
                     std::string_view error, bool dead_now);
    std::vector<LeaseResult> extend(Connection& conn, std::span<const Lease> leases,
                                    Duration visibility);
    std::vector<LeaseResult> release(Connection& conn, std::span<const Lease> leases);
    CancelResult cancel(Connection& conn, std::string_view id);
    RescheduleResult reschedule(Connection& conn, std::string_view id,
                                std::optional<std::int64_t> at_ms, std::int64_t delay_ms);
    std::optional<MessageInfo> get(Connection& conn, std::string_view id);
    QueueStats stats(Connection& conn);
    // args: inspect_codec::encode_timeline's, made before the connection was taken.
    Timeline timeline(Connection& conn, const ScriptArgs& args, Duration bucket);
    bool record_history(Connection& conn);
    std::vector<QueueStats> history(Connection& conn, const ScriptArgs& args);
    MessagePage list(Connection& conn, State state, const PageRequest& page);
    // The settings after applying `changes` (settings_codec; none only reads).
    QueueSettings settings(Connection& conn, const ScriptArgs& changes);
    DeleteResult delete_queue(Connection& conn, bool force);
    // Requeue (scripts::kDeadRequeue) or purge (scripts::kDeadPurge) dead letters: the given ids,
    // or without ids the oldest `limit`.
    manage_codec::DeadAnswer dead_letters(Connection& conn, const ScriptSource& script,
                                          std::span<const std::string> ids, std::size_t limit);

    // The push target (src/codec/push.hpp). set, read and remove touch its write-only key.
    push_codec::SetAnswer push_set(Connection& conn, const PushTarget& target);
    std::optional<PushTargetInfo> push_get(Connection& conn);
    std::optional<PushTargets::ForPusher> push_read(Connection& conn);
    bool push_remove(Connection& conn);
    void push_record(Connection& conn, int status, std::string_view error);
    PushLeases push_lease(Connection& conn, std::size_t max_count);

    // Recurring schedules (src/codec/schedule.hpp).
    schedule_codec::PutAnswer schedule_put(Connection& conn,
                                           const schedule_codec::PutRequest& request);
    schedule_codec::GetAnswer schedule_get(Connection& conn, const ScriptArgs& which);
    schedule_codec::PollAnswer schedule_poll(Connection& conn, std::size_t limit);
    schedule_codec::ClaimAnswer schedule_claim(Connection& conn,
                                               const schedule_codec::ClaimRequest& request);
    schedule_codec::StopAnswer schedule_stop(Connection& conn, bool remove, std::string_view name);
    std::optional<TriggerResult> schedule_trigger(Connection& conn, std::string_view name);

  private:
    // One script call on the queue's keys, where the queue's slot is served.
    Reply call(Connection& conn, const ScriptSource& script, const ScriptArgs& args);
    // The same with the write-only key after them (KEYS[17]), for the scripts that use it.
    Reply call_with_secret(Connection& conn, const ScriptSource& script, const ScriptArgs& args);

    std::shared_ptr<ClientCore> client_;
    std::string name_;
    QueueOptions options_;
    QueueKeys keys_;
    std::string secret_key_;
    int slot_;  // of every key in keys_
    SendTarget send_target_;
    SendCoalescer coalescer_;
    FetchShare fetch_share_;
};

}  // namespace delayq::detail
