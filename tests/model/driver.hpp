#pragma once

// The model test's driver: serial random steps, each an operation run on the model and on a
// real queue (through the public API, on a redis-server whose clock the driver moves), then a
// comparison of the whole queue with the model. The first step that differs ends the run with a
// report: the seed, the step, the last operations and every difference.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "delayq/delayq.hpp"
#include "model/cut_proxy.hpp"
#include "model/diff.hpp"
#include "model/fake_clock.hpp"
#include "model/inputs.hpp"
#include "model/model.hpp"
#include "model/push_endpoint.hpp"
#include "model/rng.hpp"
#include "support/redis_cluster.hpp"
#include "support/redis_server.hpp"

namespace delayq::model {

// One client's handles of a queue.
struct Handles {
    Handles(const Client& client, const std::string& name);

    Queue queue;
    Queue small;  // the same queue with a payload limit random payloads cross
    QueueAdmin admin;
    Leases leases;
    PushTargets push;
};

// One queue under test: its model, its handles, and what the driver saw of it.
struct Target {
    Target(const std::vector<const Client*>& clients, const std::string& name);
    // The handles of client `i` serve the next step.
    void use(std::size_t i);

    QueueModel model;
    std::vector<Handles> handles;  // one per client
    // The current client's.
    Queue queue;
    Queue small;
    QueueAdmin admin;
    Leases leases;
    PushTargets push;
    std::vector<Lease> seen_leases;    // recent leases, most of them ended: fencing material
    std::vector<Delivery> pushed;      // deliveries a push.lease handed out, to push and settle
    std::vector<std::string> history;  // every id sent to it
    std::uint64_t last_token = 0;      // tokens and generated ids only ever increase
    std::uint64_t last_generated = 0;
};

// The faults a run injects between and into its steps.
struct Faults {
    // kill -9 of redis-server (appendonly yes, appendfsync always) and a restart, or in a
    // cluster of a queue's primary: the queues must come back as the model has them, every
    // acknowledged write kept.
    bool crashes = false;
    // CLIENT KILL of every client connection as a call starts: mostly it lands around the
    // call, which must then go on on new connections; when it cuts the call, as below.
    bool connection_kills = false;
    // The first client's connections go through this relay, which cuts a call inside: before
    // Redis read it, or after Redis answered. The call may or may not have happened (the model
    // allows both, decided by reading the queue right after), and nothing else may differ.
    CutProxy* cuts = nullptr;
    // CLUSTER FAILOVER of a queue's primary to its replica (the coordinated kind, in which the
    // replica has every write the primary acknowledged): nothing may differ after it.
    bool failovers = false;
};

// The Redis under test: one server, or a cluster (whose failovers are a fault of their own).
struct Redis {
    test::RedisServer* server = nullptr;
    test::RedisCluster* cluster = nullptr;
};

// What a run did, for the report and docs/reliability.md.
struct RunCounts {
    std::uint64_t operations = 0;  // library calls the steps made and checked
    std::uint64_t crashes = 0;
    std::uint64_t connection_kills = 0;
    std::uint64_t proxy_cuts = 0;
    std::uint64_t failovers = 0;
    std::uint64_t cut_calls = 0;      // calls a kill or a cut failed (outcome unknown)
    std::uint64_t push_requests = 0;  // sent to the test's receiver (or refused at connect)
};

class Driver {
  public:
    // `known_bugs`: also the inputs that reproduce the known bugs (model_test.cpp), which fail.
    Driver(std::uint64_t seed, Redis redis, std::vector<const Client*> clients, FakeClock& clock,
           const std::vector<std::string>& queues, bool known_bugs, Faults faults = {});

    // Runs `steps` steps; "" when the queue and the model agreed throughout, else the report.
    std::string run(std::size_t steps);
    // What the run exercised: how often each operation answered what, and the queues' totals.
    std::string summary() const;
    const RunCounts& counts() const { return counts_; }

  private:
    using Op = void (Driver::*)(Target&);
    struct WeightedOp {
        std::string_view name;
        int weight;
        Op run;
    };
    static const std::vector<WeightedOp>& ops();

    void step();
    std::string report(std::string_view why) const;
    // Starts the log line of an operation; result() appends its outcome.
    void note(const Target& t, const std::string& what);
    void result(const std::string& what);
    void tally(const std::string& what, std::uint64_t n = 1);
    void tally(std::string_view op, const std::vector<LeaseResult>& results);

    // Runs a library call; nullopt when it refused the input with InvalidArgument.
    template <class F>
    auto call(F f) -> std::optional<decltype(f())> {
        try {
            return f();
        } catch (const InvalidArgument& e) {
            refusal_ = e.what();
            return std::nullopt;
        }
    }
    // Compares the answers of the model and of the library: both refused, or both answered
    // alike (by `same`).
    template <class E, class A, class Same>
    bool outcome(std::string_view what, const Expect<E>& expected, const std::optional<A>& actual,
                 Same same) {
        if (expected.has_value() == actual.has_value()) {
            if (expected) same(*expected, *actual);
            result(expected ? "ok" : "refused");
            tally(std::string(what) + (expected ? "" : " refused"));
            return expected.has_value();
        }
        diff_.add(std::string(what) +
                  (expected ? ": expected an answer, got InvalidArgument: " + refusal_
                            : ": expected InvalidArgument, got an answer"));
        return false;
    }

    // The whole queue against the model: stats and the identity, settings, every state's
    // listing (paged), and get of some ids (of every id when `thorough`).
    void check(Target& t, bool thorough);
    void check_listing(Target& t, State state);
    void check_get(Target& t, const std::string& id);

    IdPool ids(const Target& t) const;
    Lease pick_lease(Target& t);
    std::vector<Lease> pick_leases(Target& t);
    void remember(Target& t, const std::vector<SendResult>& sent);

    // Operations (ops_*.cpp).
    void advance_clock(Target& t);
    void send_one(Target& t);
    void send_many(Target& t);
    void cancel(Target& t);
    void reschedule(Target& t);
    void fetch(Target& t);
    void ack(Target& t);
    void nack(Target& t);
    void reject(Target& t);
    void extend(Target& t);
    void release(Target& t);
    void lease_text(Target& t);
    void get(Target& t);
    void list_limits(Target& t);
    void requeue(Target& t);
    void purge(Target& t);
    void update_settings(Target& t);
    void pause_or_resume(Target& t);
    void delete_queue(Target& t);
    void server_view(Target& t);
    void push_set(Target& t);
    void push_remove(Target& t);
    void push_get(Target& t);
    void push_lease(Target& t);
    void push_settle(Target& t);
    void schedule_put(Target& t);
    void schedule_pause_or_resume(Target& t);
    void schedule_remove(Target& t);
    void schedule_trigger(Target& t);
    void schedule_claim(Target& t);
    void check_schedules(Target& t);

    // Faults (faults.cpp).
    void crash_redis(Target& t);
    void crash_primary(Target& t);
    void failover(Target& t);
    // The cluster node that serves `queue` now.
    std::size_t primary_of(const std::string& queue) const;
    // One command on the node that serves `queue` now.
    test::RawReply queue_command(const std::string& queue,
                                 const std::vector<std::string>& args) const;
    // Runs `op` while every client connection is killed: a cut call is allowed either outcome.
    void kill_connections(Target& t, Op op);
    // Runs `op` through the relay, which cuts it.
    void cut_call(Target& t, Op op);
    // After `op` failed with ConnectionError: the queue must match the model with the call
    // (as it is now), if it `may_have_happened`, or without it (`before`), which it then takes.
    void resolve_cut(Target& t, const QueueModel& before, bool may_have_happened);
    // Whether the queue matches the model, every message looked at; the differences go to
    // `diff` rather than to the run's.
    bool matches(Target& t, Diff& diff);
    // Every message id the queue lists.
    std::vector<std::string> listed_ids(Target& t);
    static bool cuttable(Op op);
    static std::string_view name_of(Op op);

    std::uint64_t seed_;
    bool known_bugs_;
    Rng rng_;
    Redis redis_;
    std::vector<const Client*> clients_;
    const Client* client_ = nullptr;  // the current step's
    Faults faults_;
    RunCounts counts_;
    FakeClock& clock_;
    std::int64_t start_ms_;
    std::vector<std::unique_ptr<Target>> targets_;
    std::size_t step_ = 0;
    Diff diff_;
    PushEndpoint push_endpoint_;
    std::string refusal_;
    std::deque<std::string> log_;
    Op follow_up_ = nullptr;  // the next step's operation, when one is due
    Target* follow_up_target_ = nullptr;
    std::string follow_up_id_;  // whose lease the follow-up takes
    std::map<std::string, std::uint64_t> tallies_;
    Totals deleted_totals_{};  // of queues deleted during the run
};

}  // namespace delayq::model
