#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "delayq/delayq.hpp"
#include "fault/checker.hpp"
#include "fault/history.hpp"
#include "fault/worker_process.hpp"
#include "support/redis_server.hpp"

namespace delayq::fault {

using namespace std::chrono_literals;
using test::RedisServer;
using test::RedisServerOptions;

// Bounds a wait for something that must happen; never a speed requirement.
inline constexpr std::chrono::milliseconds kDeadline = 30s;
inline constexpr const char* kQueue = "fq";

struct ProducerSpec {
    std::string queue = kQueue;
    long long count = 20;
    long long delay_min_ms = 0;
    long long delay_max_ms = 0;
    long long interval_ms = 0;
    // Durable sends (QueueOptions::durability): a send counts as acknowledged only once this
    // many replicas confirmed it; one they did not confirm in time is retried with its id.
    int wait_replicas = 0;
    long long wait_timeout_ms = 0;
};

struct ConsumerSpec {
    std::string queue = kQueue;
    long long visibility_ms = 1000;
    long long handler_sleep_ms = 0;
    long long concurrency = 1;
    long long idle_check_ms = 500;
    bool manual_ack = false;
    // Short, so that faults show fast; a scenario about something else may want fewer timeouts
    // on a loaded machine (a fetch whose reply times out still counts its attempt).
    long long command_timeout_ms = 500;
};

// One redis-server (appendonly, appendfsync always), a directory of history files, and fault
// worker processes on them. Faults the test injects go to faults.history with Redis times.
// A scenario on other servers (a cluster) overrides where Redis is: start_redis,
// stored_messages and redis_now.
class FaultTest : public ::testing::Test {
  protected:
    void SetUp() override;
    void TearDown() override;

    virtual RedisServerOptions server_options() const;
    // Starts the Redis of the scenario; returns the URL that the fixture's client and the
    // workers connect with.
    virtual std::string start_redis();
    // The fields of `queue`'s message hash, asked of the server that holds it: finish()'s
    // check that nothing is left behind the queue's counts.
    virtual long long stored_messages(const std::string& queue) const;
    virtual std::int64_t redis_now() const { return server_->time_ms(); }

    RedisServer& server() { return *server_; }
    QueueAdmin admin(const std::string& queue = kQueue) { return client_->admin(queue); }

    // Prefixes a worker's command line (e.g. faketime) and adds environment entries.
    struct Wrapper {
        std::vector<std::string> argv;
        std::vector<std::string> env;
    };

    WorkerProcess& start_producer(const std::string& name, const ProducerSpec& spec,
                                  const Wrapper& wrapper = {});
    WorkerProcess& start_consumer(const std::string& name, const ConsumerSpec& spec,
                                  const Wrapper& wrapper = {});
    WorkerProcess& worker(const std::string& name) { return *workers_.at(name); }

    void record_fault(const std::string& kind, const std::string& target, std::int64_t start_ms,
                      std::int64_t end_ms);
    // kill -9 of a worker, recorded as consumer_kill (or producer_kill).
    void kill_worker(const std::string& name);
    // `rounds` times: once 40 more acks are in the history, kill -9 of redis-server, a check
    // that a producer's send then fails (its outcome unknown) rather than hangs, and a restart,
    // recorded as redis_kill. Returns the Redis time of the last restart.
    std::int64_t kill_and_restart_redis(int rounds);

    History history() const { return read_histories(dir_); }
    // Polls the merged history until pred holds; false at the deadline.
    bool await_history(const std::function<bool(const History&)>& pred,
                       std::chrono::milliseconds deadline = kDeadline) const;
    // Producers whose acknowledged sends a scenario may lose (plain sends to a primary killed
    // before it replicated them): their losses are counted and printed, not failed.
    using MayLose = std::set<std::string>;

    // Waits for the producers to exit 0 and for every acknowledged send to be handled (but
    // those of `may_lose`, once every queue is empty: what is missing then is lost).
    void await_all_handled(std::chrono::milliseconds deadline = kDeadline,
                           const MayLose& may_lose = {});
    // Stops every worker still running (SIGTERM, gracefully), checks the history and the
    // queue, prints the summary and returns the report. Asserts lost = unexpected = early = 0
    // (lost: but sends of `may_lose`), every duplicate explained, and an empty queue.
    Report finish(const MayLose& may_lose = {});
    // The lost ids that `may_lose`'s producers sent.
    std::vector<std::string> lost_of(const Report& report, const MayLose& may_lose) const;

    // Connection addresses (ip:port) of a worker's TCP connections to this Redis.
    std::vector<std::string> connection_addrs(const std::string& name) const;

    std::filesystem::path dir_;
    std::unique_ptr<RedisServer> server_;  // null when start_redis starts other servers
    std::string url_;                      // start_redis's
    // The URL workers connect with (an ACL user's, say); empty: the server's, as the default
    // user. The fixture's own client (the checks) stays the default user.
    std::string worker_url_;
    std::optional<Client> client_;
    std::map<std::string, std::unique_ptr<WorkerProcess>> workers_;
    // The workers that are producers, which await_all_handled waits for: start_producer's, and
    // those a scenario starts itself (HTTP ones).
    std::set<std::string> producers_;
    std::unique_ptr<HistoryWriter> faults_;

  private:
    WorkerProcess& spawn(const std::string& name, const std::string& queue,
                         std::vector<std::string> args, const Wrapper& wrapper);

    // The scenario's queues: kQueue, which workers of their own (HTTP) use too, and every queue
    // a worker was started on.
    std::set<std::string> queues_{kQueue};
};

}  // namespace delayq::fault
