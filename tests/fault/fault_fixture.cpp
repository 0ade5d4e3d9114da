#include "fault/fault_fixture.hpp"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <thread>

#ifndef DELAYQ_FAULT_WORKER
#error "DELAYQ_FAULT_WORKER must name the delayq_fault_worker binary"
#endif

namespace delayq::fault {
namespace {

// Socket inodes of a process's open descriptors.
std::set<std::string> socket_inodes(pid_t pid) {
    std::set<std::string> out;
    std::error_code ec;
    const std::filesystem::path fds = "/proc/" + std::to_string(pid) + "/fd";
    for (const auto& entry : std::filesystem::directory_iterator(fds, ec)) {
        const std::string target = std::filesystem::read_symlink(entry.path(), ec).string();
        if (target.rfind("socket:[", 0) == 0) out.insert(target.substr(8, target.size() - 9));
    }
    return out;
}

}  // namespace

RedisServerOptions FaultTest::server_options() const {
    return {.extra_args = {"--appendfsync", "always", "--maxmemory-policy", "noeviction"},
            .appendonly = true};
}

std::string FaultTest::start_redis() {
    server_ = std::make_unique<RedisServer>(server_options());
    return server_->url();
}

long long FaultTest::stored_messages(const std::string& queue) const {
    return server_->hlen(test::queue_key(queue, "msg"));
}

void FaultTest::SetUp() {
    std::string templ = (std::filesystem::temp_directory_path() / "delayq-fault-XXXXXX").string();
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    dir_ = templ;
    url_ = start_redis();
    ClientOptions options;
    options.command_timeout = 2s;
    client_.emplace(url_, options);
    faults_ = std::make_unique<HistoryWriter>(dir_ / "faults.history");
}

void FaultTest::TearDown() {
    for (auto& [name, w] : workers_) w->kill();
    // DELAYQ_FAULT_KEEP=1 keeps histories and worker logs of passing tests too.
    const char* keep = std::getenv("DELAYQ_FAULT_KEEP");
    if (HasFailure() || (keep != nullptr && *keep == '1')) {
        for (auto& [name, w] : workers_) {
            if (HasFailure()) {
                std::cerr << "---- log of " << name << ":\n" << w->log().substr(0, 4000) << '\n';
            }
        }
        std::cerr << "histories kept in " << dir_ << '\n';
    } else {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
}

WorkerProcess& FaultTest::spawn(const std::string& name, const std::string& queue,
                                std::vector<std::string> args, const Wrapper& wrapper) {
    std::vector<std::string> argv = wrapper.argv;
    argv.push_back(DELAYQ_FAULT_WORKER);
    queues_.insert(queue);
    const std::vector<std::string> common = {
        "--name",  name,  "--redis",   worker_url_.empty() ? url_ : worker_url_,
        "--queue", queue, "--history", (dir_ / (name + ".history")).string()};
    argv.insert(argv.end(), common.begin(), common.end());
    argv.insert(argv.end(), args.begin(), args.end());
    auto process = std::make_unique<WorkerProcess>(name, argv, dir_ / (name + ".log"), wrapper.env);
    auto& slot = workers_[name];
    if (slot) slot->kill();
    slot = std::move(process);
    return *slot;
}

WorkerProcess& FaultTest::start_producer(const std::string& name, const ProducerSpec& spec,
                                         const Wrapper& wrapper) {
    producers_.insert(name);
    std::vector<std::string> durable;
    if (spec.wait_replicas > 0) {
        durable = {"--wait-replicas", std::to_string(spec.wait_replicas), "--wait-timeout-ms",
                   std::to_string(spec.wait_timeout_ms)};
    }
    std::vector<std::string> args = {
        "--role",         "producer",
        "--count",        std::to_string(spec.count),
        "--delay-min-ms", std::to_string(spec.delay_min_ms),
        "--delay-max-ms", std::to_string(spec.delay_max_ms),
        "--interval-ms",  std::to_string(spec.interval_ms),
        "--seed",         std::to_string(std::hash<std::string>{}(name) % 1'000'000'007)};
    args.insert(args.end(), durable.begin(), durable.end());
    return spawn(name, spec.queue, args, wrapper);
}

WorkerProcess& FaultTest::start_consumer(const std::string& name, const ConsumerSpec& spec,
                                         const Wrapper& wrapper) {
    std::vector<std::string> args = {"--role",
                                     "consumer",
                                     "--visibility-ms",
                                     std::to_string(spec.visibility_ms),
                                     "--handler-sleep-ms",
                                     std::to_string(spec.handler_sleep_ms),
                                     "--concurrency",
                                     std::to_string(spec.concurrency),
                                     "--idle-check-ms",
                                     std::to_string(spec.idle_check_ms),
                                     "--command-timeout-ms",
                                     std::to_string(spec.command_timeout_ms)};
    if (spec.manual_ack) args.emplace_back("--manual-ack");
    return spawn(name, spec.queue, args, wrapper);
}

void FaultTest::record_fault(const std::string& kind, const std::string& target,
                             std::int64_t start_ms, std::int64_t end_ms) {
    faults_->write(to_line(FaultEvent{kind, target, start_ms, end_ms}));
}

void FaultTest::kill_worker(const std::string& name) {
    const std::int64_t now = redis_now();
    worker(name).kill();
    record_fault(name[0] == 'p' ? "producer_kill" : "consumer_kill", name, now, now);
}

std::int64_t FaultTest::kill_and_restart_redis(int rounds) {
    const auto unknown_sends = [](const History& h) {
        std::size_t n = 0;
        for (const auto& s : h.sends) n += s.status == SendStatus::kUnknown ? 1 : 0;
        return n;
    };
    std::int64_t restarted_at = 0;
    for (int round = 1; round <= rounds; ++round) {
        EXPECT_TRUE(await_history([&](const History& h) {
            return h.acks.size() >= static_cast<std::size_t>(40 * round);
        }));
        const std::size_t unknown_before = unknown_sends(history());
        const std::int64_t killed_at = redis_now();
        server().kill();
        EXPECT_TRUE(
            await_history([&](const History& h) { return unknown_sends(h) > unknown_before; }));
        server().start();
        restarted_at = redis_now();
        record_fault("redis_kill", "", killed_at, restarted_at);
    }
    return restarted_at;
}

bool FaultTest::await_history(const std::function<bool(const History&)>& pred,
                              std::chrono::milliseconds deadline) const {
    const auto end = std::chrono::steady_clock::now() + deadline;
    while (true) {
        if (pred(history())) return true;
        if (std::chrono::steady_clock::now() >= end) return false;
        std::this_thread::sleep_for(20ms);
    }
}

std::vector<std::string> FaultTest::lost_of(const Report& report, const MayLose& may_lose) const {
    std::set<std::string> theirs;
    for (const auto& s : history().sends) {
        if (may_lose.contains(s.process)) theirs.insert(s.id);
    }
    std::vector<std::string> out;
    for (const std::string& id : report.lost) {
        if (theirs.contains(id)) out.push_back(id);
    }
    return out;
}

void FaultTest::await_all_handled(std::chrono::milliseconds deadline, const MayLose& may_lose) {
    for (auto& [name, w] : workers_) {
        if (!producers_.contains(name)) continue;
        const auto code = w->wait(deadline);
        ASSERT_TRUE(code.has_value()) << name << " did not finish:\n" << w->log();
        EXPECT_EQ(*code, 0) << name << ":\n" << w->log();
    }
    const auto queues_empty = [&] {
        for (const std::string& queue : queues_) {
            const QueueStats stats = admin(queue).stats();
            if (stats.scheduled + stats.ready + stats.in_flight > 0) return false;
        }
        return true;
    };
    const bool handled = await_history(
        [&](const History& h) {
            const Report report = check(h);
            if (report.lost.empty()) return true;
            return !may_lose.empty() && lost_of(report, may_lose).size() == report.lost.size() &&
                   queues_empty();
        },
        deadline);
    EXPECT_TRUE(handled) << check(history()).summary();
}

Report FaultTest::finish(const MayLose& may_lose) {
    for (auto& [name, w] : workers_) {
        if (!w->running()) continue;
        const auto code = w->terminate(kDeadline);
        EXPECT_EQ(code, 0) << name << " did not stop cleanly on SIGTERM:\n" << w->log();
    }
    const History h = history();
    const Report report = check(h);
    std::cout << "[fault summary] "
              << ::testing::UnitTest::GetInstance()->current_test_info()->name() << '\n'
              << report.summary();
    for (auto& [name, w] : workers_) {
        const std::string log = w->log();
        const std::size_t at = log.rfind(": stats ");
        if (at != std::string::npos) {
            std::cout << "  " << log.substr(at - name.size(), log.find('\n', at) - at + name.size())
                      << '\n';
        }
    }
    const std::vector<std::string> allowed = lost_of(report, may_lose);
    EXPECT_EQ(report.lost.size(), allowed.size()) << "lost beyond the plain sends of a failover";
    if (!may_lose.empty()) {
        std::cout << "  acknowledged plain sends the failover lost: " << allowed.size() << '\n';
    }
    EXPECT_TRUE(report.unexpected.empty());
    EXPECT_TRUE(report.early.empty());
    EXPECT_EQ(report.unexplained_duplicates(), 0u);
    // The history says every message was handled; Redis must agree that none is left.
    // One message per id: Redis stored exactly as many messages as distinct ids came out.
    std::set<std::string> delivered_ids;
    for (const auto& d : h.deliveries) delivered_ids.insert(d.id);
    std::uint64_t sent = 0;
    for (const std::string& queue : queues_) {
        const QueueStats stats = admin(queue).stats();
        EXPECT_EQ(stats.scheduled + stats.ready + stats.in_flight + stats.dead, 0u) << queue;
        EXPECT_EQ(stats.totals.acked, stats.totals.sent) << queue;
        EXPECT_EQ(stored_messages(queue), 0) << queue;
        sent += stats.totals.sent;
    }
    // A send delivered from a primary that died before its replica had it is delivered, yet
    // not among the sends the new primary counts.
    if (may_lose.empty()) {
        EXPECT_EQ(sent, delivered_ids.size());
    }
    return report;
}

std::vector<std::string> FaultTest::connection_addrs(const std::string& name) const {
    const pid_t pid = workers_.at(name)->pid();
    const std::set<std::string> inodes = socket_inodes(pid);
    char redis_port[8];
    std::snprintf(redis_port, sizeof redis_port, "%04X", server_->port());
    std::vector<std::string> out;
    std::ifstream tcp("/proc/" + std::to_string(pid) + "/net/tcp");
    std::string line;
    std::getline(tcp, line);  // header
    while (std::getline(tcp, line)) {
        std::istringstream fields(line);
        std::string slot, local, remote, state, queues, timer, retr, uid, timeout, inode;
        fields >> slot >> local >> remote >> state >> queues >> timer >> retr >> uid >> timeout >>
            inode;
        if (inodes.count(inode) == 0 || remote.substr(remote.find(':') + 1) != redis_port) {
            continue;
        }
        const int port = std::stoi(local.substr(local.find(':') + 1), nullptr, 16);
        out.push_back("127.0.0.1:" + std::to_string(port));
    }
    return out;
}

}  // namespace delayq::fault
