// Faults between and inside the steps: a crash of redis-server, client connections killed as a
// call starts or cut inside it, and a cluster's failover.
#include <algorithm>
#include <thread>
#include <utility>

#include "model/driver.hpp"

namespace delayq::model {
namespace {

// How long after the call starts the connections are killed: before Redis reads it, while it
// runs, or after it answered; each outcome happens.
constexpr std::int64_t kMaxKillDelayUs = 400;
// More than twice the cluster fixture's node timeout (1 s).
constexpr std::int64_t kVoteGapUs = 2'500'000;

}  // namespace

// With appendfsync always every write Redis acknowledged is on disk before the answer, so the
// restarted server must hold exactly what the model holds.
void Driver::crash_redis(Target& t) {
    if (redis_.cluster != nullptr) {
        crash_primary(t);
        return;
    }
    note(t, "kill -9 redis-server, then start it again");
    redis_.server->kill();
    if (faults_.cuts != nullptr) faults_.cuts->drop_all();
    redis_.server->start();
    ++counts_.crashes;
    tally("fault: redis-server crashed and restarted");
    for (auto& target : targets_) check(*target, true);
}

// The primary of the queue's slot, killed and restarted from its append-only file; no replica
// takes over (cluster-replica-no-failover), so it comes back with its slots and every write it
// acknowledged. A restarted primary takes writes only after 2 s of its clock, and the others
// clear its FAIL flag after twice the node timeout: the clock runs until the cluster has
// settled, then the model catches up with it.
void Driver::crash_primary(Target& t) {
    test::RedisCluster& cluster = *redis_.cluster;
    const std::size_t primary = primary_of(t.model.name());
    note(t, "kill -9 of primary node " + std::to_string(primary) + ", then start it again");
    cluster.kill(primary);
    {
        const TickingClock ticking(clock_);
        cluster.restart(primary);
    }
    for (auto& target : targets_) target->model.set_now_us(clock_.now_us());
    diff_.eq("the restarted node serves the queue again", primary, primary_of(t.model.name()));
    ++counts_.crashes;
    tally("fault: a cluster primary crashed and restarted");
    for (auto& target : targets_) check(*target, true);
}

// Coordinated: the primary stops taking writes until its replica has them all, so that the
// promoted replica holds exactly what the model holds. Redis refuses a node's vote twice within
// twice the node timeout, on the servers' clock: the clock moves on that far first.
void Driver::failover(Target& t) {
    test::RedisCluster& cluster = *redis_.cluster;
    const std::size_t primary = primary_of(t.model.name());
    const std::vector<std::size_t> replicas = cluster.replicas_of(primary);
    if (replicas.empty()) return;
    const std::size_t replica = rng_.pick(replicas);
    note(t, "CLUSTER FAILOVER of node " + std::to_string(primary) + " to node " +
                std::to_string(replica));
    clock_.advance(kVoteGapUs);
    for (auto& target : targets_) target->model.set_now_us(clock_.now_us());
    cluster.failover(replica);
    ++counts_.failovers;
    tally("fault: failover");
    for (auto& target : targets_) check(*target, true);
}

std::size_t Driver::primary_of(const std::string& queue) const {
    return redis_.cluster->primary_of_slot(
        test::RedisCluster::slot_of(test::queue_key(queue, "msg")));
}

test::RawReply Driver::queue_command(const std::string& queue,
                                     const std::vector<std::string>& args) const {
    if (redis_.cluster == nullptr) return redis_.server->command(args);
    return redis_.cluster->node(primary_of(queue)).command(args);
}

// The calls a cut may fall into: one library call that writes, its model applied right before
// it, so that "before" and "after" are the only two states the queue may be left in. What only
// the lost answer told is read from Redis (resolve_cut): a send's generated ids from the queue's
// listing, a fetch's tokens from its in-flight leases.
bool Driver::cuttable(Op op) {
    return op == &Driver::send_one || op == &Driver::send_many || op == &Driver::cancel ||
           op == &Driver::reschedule || op == &Driver::fetch || op == &Driver::ack ||
           op == &Driver::nack || op == &Driver::reject || op == &Driver::extend ||
           op == &Driver::release || op == &Driver::requeue || op == &Driver::purge ||
           op == &Driver::update_settings || op == &Driver::push_remove ||
           op == &Driver::push_lease;
}

void Driver::kill_connections(Target& t, Op op) {
    const QueueModel before = t.model;
    const auto delay = std::chrono::microseconds(rng_.between(0, kMaxKillDelayUs));
    ++counts_.connection_kills;
    bool cut = false;
    {
        std::jthread killer([&] {
            std::this_thread::sleep_for(delay);
            redis_.server->command({"CLIENT", "KILL", "TYPE", "normal"});
        });
        try {
            (this->*op)(t);
        } catch (const ConnectionError& e) {
            cut = true;
            result(std::string("cut: ") + e.what());
        }
    }
    // CLIENT KILL closes the sockets before it answers, so the pools see every killed
    // connection closed from here on and drop it: no later call meets one.
    if (faults_.cuts != nullptr) faults_.cuts->drop_all();
    result("connections killed");
    if (!cut) {
        tally("fault: CLIENT KILL around a call, which answered");
        return;  // it answered, and what it answered was checked
    }
    tally("fault: CLIENT KILL cut a call");
    tally("fault: cut a call of " + std::string(name_of(op)));
    resolve_cut(t, before, true);
}

void Driver::cut_call(Target& t, Op op) {
    const QueueModel before = t.model;
    const bool after_redis = rng_.chance(0.5);
    const std::string how = after_redis ? "after Redis answered" : "before Redis read it";
    faults_.cuts->arm(after_redis ? CutProxy::Cut::kAfterRedis : CutProxy::Cut::kBeforeRedis);
    ++counts_.proxy_cuts;
    bool cut = false;
    try {
        (this->*op)(t);
    } catch (const ConnectionError& e) {
        cut = true;
        result("cut " + how + ": " + e.what());
    }
    const bool fired = faults_.cuts->disarm();
    if (!cut) {
        // No call of the step went to Redis (a lease nobody holds is refused by the client):
        // nothing to cut. A cut the library hid would have shown in the answer's check.
        tally(fired ? "fault: relay cut, the call answered anyway" : "fault: relay cut, no call");
        return;
    }
    tally("fault: relay cut a call " + how);
    tally("fault: cut a call of " + std::string(name_of(op)));
    // Cut before Redis read it, the call cannot have happened, whatever request was cut (the
    // call's own, or the handshake of the connection it opened); cut after, it may not have
    // either (a handshake's answer was cut).
    resolve_cut(t, before, after_redis);
}

void Driver::resolve_cut(Target& t, const QueueModel& before, bool may_have_happened) {
    ++counts_.cut_calls;
    Diff with_call;
    if (!may_have_happened) {
        t.model = before;
        check(t, true);
        if (!diff_.empty()) diff_.add("-- a call cut before Redis read it changed the queue");
        tally("fault: the cut call had not happened");
        return;
    }
    // A send's generated ids: those the queue has and the model does not, in the order Redis
    // generated them (ascending, as the sequence keys are).
    if (t.model.unnamed() > 0) {
        std::vector<SendResult> found;
        for (const std::string& id : listed_ids(t)) {
            if (!t.model.messages().contains(id)) found.push_back({id, false, TimePoint{}});
        }
        std::sort(found.begin(), found.end(),
                  [](const SendResult& a, const SendResult& b) { return a.id < b.id; });
        if (const std::string wrong = t.model.name_generated(found); !wrong.empty()) {
            with_call.add("the cut send's generated ids: " + wrong);
        }
    }
    // A fetch's tokens: its deliveries are in flight under them now, if it happened. Nobody
    // holds these leases; they lapse.
    if (t.model.unbound()) {
        const std::string inflight = test::queue_key(t.model.name(), "inflight");
        std::vector<Lease> leases;
        for (const test::RawReply& member :
             queue_command(t.model.name(), {"ZRANGE", inflight, "0", "-1"}).elements) {
            if (const auto lease = Lease::parse(member.str)) leases.push_back(*lease);
        }
        if (const std::string wrong = t.model.bind_read_tokens(leases); !wrong.empty()) {
            with_call.add("the cut fetch: " + wrong);
        }
    }
    if (with_call.empty() && matches(t, with_call)) {
        tally("fault: the cut call had happened");
        return;
    }
    QueueModel after = std::exchange(t.model, before);
    Diff without_call;
    if (matches(t, without_call)) {
        tally("fault: the cut call had not happened");
        return;
    }
    t.model = std::move(after);
    diff_.add("a call cut by a connection kill left the queue in neither of its two outcomes");
    diff_.add("-- against the model with the call:");
    for (const std::string& line : with_call.lines()) diff_.add(line);
    diff_.add("-- against the model without it:");
    for (const std::string& line : without_call.lines()) diff_.add(line);
}

std::string_view Driver::name_of(Op op) {
    for (const WeightedOp& w : ops()) {
        if (w.run == op) return w.name;
    }
    return "?";
}

std::vector<std::string> Driver::listed_ids(Target& t) {
    std::vector<std::string> out;
    for (const State state : {State::kScheduled, State::kReady, State::kInFlight, State::kDead}) {
        PageRequest page{.limit = kMaxBatch};
        for (;;) {
            MessagePage p = t.admin.list(state, page);
            for (const MessageInfo& m : p.messages) out.push_back(m.id);
            if (p.next_cursor.empty()) break;
            page.cursor = p.next_cursor;
        }
    }
    return out;
}

bool Driver::matches(Target& t, Diff& diff) {
    std::swap(diff_, diff);
    check(t, true);
    std::swap(diff_, diff);
    return diff.empty();
}

}  // namespace delayq::model
