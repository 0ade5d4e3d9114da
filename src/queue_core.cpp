#include "queue_core.hpp"

#include "codec/common.hpp"
#include "codec/fetch.hpp"
#include "codec/inspect.hpp"
#include "codec/lease.hpp"
#include "codec/settings.hpp"
#include "delayq/error.hpp"
#include "redis/key_slot.hpp"
#include "redis/script.hpp"

namespace delayq::detail {

QueueCore::QueueCore(std::shared_ptr<ClientCore> client, std::string name, QueueOptions options)
    : client_(std::move(client)),
      name_(std::move(name)),
      options_(options),
      keys_(make_keys(name_)),
      secret_key_(make_secret_key(name_)),
      slot_(key_slot(keys_.front())),
      send_target_{Route{client_->topology(), slot_},
                   client_->options().command_timeout,
                   keys_,
                   name_,
                   {options_.max_payload_bytes},
                   options_.durability},
      coalescer_(send_target_, client_->send_hub(), options_.send_linger) {}

namespace {

// open(pool) on the pool of the node that serves `slot`; when that node cannot be reached and
// the topology, learnt again, names another one, once more there. Nothing was sent on the
// failed connection, so trying elsewhere repeats nothing.
template <class Open>
auto open_on_owner(Topology& topology, int slot, const Open& open) {
    ConnectionPool& tried = topology.pool_for(slot);
    try {
        return open(tried);
    } catch (const ConnectionError&) {
        topology.refresh();
        ConnectionPool& owner = topology.pool_for(slot);
        if (&owner == &tried) throw;
        return open(owner);
    }
}

}  // namespace

ConnectionPool::Lease QueueCore::acquire() {
    return open_on_owner(client_->topology(), slot_,
                         [](ConnectionPool& pool) { return pool.acquire(); });
}

Connection QueueCore::connect() {
    return open_on_owner(client_->topology(), slot_,
                         [](ConnectionPool& pool) { return pool.connect(); });
}

Reply QueueCore::call(Connection& conn, const ScriptSource& script, const ScriptArgs& args) {
    return run_routed(Route{client_->topology(), slot_}, conn, script, keys_, args,
                      client_->options().command_timeout);
}

Reply QueueCore::call_with_secret(Connection& conn, const ScriptSource& script,
                                  const ScriptArgs& args) {
    std::vector<std::string> keys(keys_.begin(), keys_.end());
    keys.push_back(secret_key_);
    return run_routed(Route{client_->topology(), slot_}, conn, script, keys, args,
                      client_->options().command_timeout);
}

std::vector<SendResult> QueueCore::send(Connection& conn,
                                        std::span<const send_codec::MessageRef> messages) {
    return send_now(conn, send_target_, messages);
}

FetchResult QueueCore::fetch(Connection& conn, std::size_t max_count, Duration visibility) {
    const ScriptArgs args = fetch_codec::encode(max_count, visibility);
    return fetch_codec::decode(call(conn, scripts::kFetch, args), name_);
}

std::vector<LeaseResult> QueueCore::ack(Connection& conn, std::span<const Lease> leases) {
    const ScriptArgs args = lease_codec::encode_ack(leases);
    return lease_codec::decode_ack(call(conn, scripts::kAck, args), leases.size());
}

LeaseResult QueueCore::nack(Connection& conn, const Lease& lease, std::optional<Duration> delay,
                            std::string_view error, bool dead_now) {
    const ScriptArgs args = lease_codec::encode_nack(lease, {delay, error, dead_now});
    return lease_codec::decode_nack(call(conn, scripts::kNack, args));
}

std::vector<LeaseResult> QueueCore::extend(Connection& conn, std::span<const Lease> leases,
                                           Duration visibility) {
    const ScriptArgs args = lease_codec::encode_extend(leases, visibility);
    return lease_codec::decode_extend(call(conn, scripts::kExtend, args));
}

std::vector<LeaseResult> QueueCore::release(Connection& conn, std::span<const Lease> leases) {
    const ScriptArgs args = lease_codec::encode_release(leases);
    return lease_codec::decode_release(call(conn, scripts::kRelease, args));
}

CancelResult QueueCore::cancel(Connection& conn, std::string_view id) {
    const ScriptArgs args = encode_id(id);
    return manage_codec::decode_cancel(call(conn, scripts::kCancel, args));
}

RescheduleResult QueueCore::reschedule(Connection& conn, std::string_view id,
                                       std::optional<std::int64_t> at_ms, std::int64_t delay_ms) {
    const ScriptArgs args = manage_codec::encode_reschedule(id, at_ms, delay_ms);
    return manage_codec::decode_reschedule(call(conn, scripts::kReschedule, args));
}

std::optional<MessageInfo> QueueCore::get(Connection& conn, std::string_view id) {
    const ScriptArgs args = encode_id(id);
    return inspect_codec::decode_get(call(conn, scripts::kGet, args), id);
}

QueueStats QueueCore::stats(Connection& conn) {
    return inspect_codec::decode_stats(call(conn, scripts::kStats, ScriptArgs{}));
}

Timeline QueueCore::timeline(Connection& conn, const ScriptArgs& args, Duration bucket) {
    return inspect_codec::decode_timeline(call(conn, scripts::kTimeline, args), bucket);
}

bool QueueCore::record_history(Connection& conn) {
    return inspect_codec::decode_record_history(call(conn, scripts::kHistoryRecord, ScriptArgs{}));
}

std::vector<QueueStats> QueueCore::history(Connection& conn, const ScriptArgs& args) {
    return inspect_codec::decode_history(call(conn, scripts::kHistoryGet, args));
}

MessagePage QueueCore::list(Connection& conn, State state, const PageRequest& page) {
    const ScriptArgs args = inspect_codec::encode_list(state, page);
    return inspect_codec::decode_list(call(conn, scripts::kList, args), state);
}

QueueSettings QueueCore::settings(Connection& conn, const ScriptArgs& changes) {
    // Reading alone takes the read-only script, which a read-only ACL user may run.
    const ScriptSource& script = changes.size() == 0 ? scripts::kSettingsGet : scripts::kSettings;
    return settings_codec::decode(call(conn, script, changes));
}

DeleteResult QueueCore::delete_queue(Connection& conn, bool force) {
    const ScriptArgs args = settings_codec::encode_delete(force);
    return settings_codec::decode_delete(call_with_secret(conn, scripts::kDelete, args));
}

manage_codec::DeadAnswer QueueCore::dead_letters(Connection& conn, const ScriptSource& script,
                                                 std::span<const std::string> ids,
                                                 std::size_t limit) {
    const ScriptArgs args = manage_codec::encode_dead(ids, limit);
    return manage_codec::decode_dead(call(conn, script, args));
}

schedule_codec::PutAnswer QueueCore::schedule_put(Connection& conn,
                                                  const schedule_codec::PutRequest& request) {
    const ScriptArgs args = schedule_codec::encode_put(request);
    return schedule_codec::decode_put(call(conn, scripts::kSchedulePut, args));
}

schedule_codec::GetAnswer QueueCore::schedule_get(Connection& conn, const ScriptArgs& which) {
    return schedule_codec::decode_get(call(conn, scripts::kScheduleGet, which));
}

schedule_codec::PollAnswer QueueCore::schedule_poll(Connection& conn, std::size_t limit) {
    const ScriptArgs args = schedule_codec::encode_poll(limit);
    return schedule_codec::decode_poll(call(conn, scripts::kSchedulePoll, args));
}

schedule_codec::ClaimAnswer QueueCore::schedule_claim(Connection& conn,
                                                      const schedule_codec::ClaimRequest& request) {
    const ScriptArgs args = schedule_codec::encode_claim(request);
    return schedule_codec::decode_claim(call(conn, scripts::kScheduleClaim, args));
}

schedule_codec::StopAnswer QueueCore::schedule_stop(Connection& conn, bool remove,
                                                    std::string_view name) {
    const ScriptArgs args = schedule_codec::encode_stop(remove, name);
    return schedule_codec::decode_stop(call(conn, scripts::kScheduleStop, args));
}

std::optional<TriggerResult> QueueCore::schedule_trigger(Connection& conn, std::string_view name) {
    const ScriptArgs args = schedule_codec::encode_trigger(name);
    return schedule_codec::decode_trigger(call(conn, scripts::kScheduleTrigger, args), name);
}

push_codec::SetAnswer QueueCore::push_set(Connection& conn, const PushTarget& target) {
    const ScriptArgs args = push_codec::encode_set(target);
    return push_codec::decode_set(call_with_secret(conn, scripts::kPushSet, args));
}

std::optional<PushTargetInfo> QueueCore::push_get(Connection& conn) {
    return push_codec::decode_get(call(conn, scripts::kPushGet, ScriptArgs{}));
}

std::optional<PushTargets::ForPusher> QueueCore::push_read(Connection& conn) {
    return push_codec::decode_read(call_with_secret(conn, scripts::kPushRead, ScriptArgs{}));
}

bool QueueCore::push_remove(Connection& conn) {
    return push_codec::decode_remove(call_with_secret(conn, scripts::kPushRemove, ScriptArgs{}));
}

void QueueCore::push_record(Connection& conn, int status, std::string_view error) {
    const ScriptArgs args = push_codec::encode_record(status, error);
    call(conn, scripts::kPushRecord, args);
}

PushLeases QueueCore::push_lease(Connection& conn, std::size_t max_count) {
    const ScriptArgs args = push_codec::encode_lease(max_count);
    return push_codec::decode_lease(call(conn, scripts::kPushLease, args), name_);
}

}  // namespace delayq::detail
