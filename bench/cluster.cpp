// mode cluster (also --cluster): what Redis Cluster mode costs, and how it spreads the work.
// Starts a cluster of 3 primaries (no replicas) beside the bench's own standalone server, and in
// each run measures both with the same workload: n messages due now sent in send_batch calls
// of 1000 from two threads, then leased and acked in batches of 1000 from two threads.
//   one_queue: the Redis CPU per message of each phase on one queue, standalone against the
//              cluster (the sum over its primaries), and the ratio (target: at most 1.10);
//   spread_30: the same over 30 queues on the cluster, with each primary's share of the CPU;
//   slot_move: a queue holding `pending` messages has its slot moved to another primary while
//              a thread sends to it one message at a time: how long the move took and the
//              longest send (each waits, TRYAGAIN, while the slot is between nodes).
// Two cores cannot show wall-clock scaling past one Redis core, so the figures are CPU, which
// docs/benchmarks.md turns into what more primaries on their own machines would carry.
#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "modes.hpp"
#include "support/redis_cluster.hpp"

namespace delayq::bench {
namespace {

// Redis CPU of several servers over a window: a cluster's work is its primaries' sum.
class NodesCpu {
  public:
    explicit NodesCpu(const std::vector<std::string>& urls) {
        for (const std::string& url : urls) {
            probes_.push_back(std::make_unique<Probe>(detail::parse_url(url)));
        }
    }
    void start() { before_ = read(); }
    void stop() { after_ = read(); }
    std::vector<double> per_node_s() const {
        std::vector<double> out;
        for (std::size_t i = 0; i < before_.size(); ++i) out.push_back(after_[i] - before_[i]);
        return out;
    }
    double total_s() const {
        const std::vector<double> each = per_node_s();
        double sum = 0;
        for (const double s : each) sum += s;
        return sum;
    }

  private:
    std::vector<double> read() {
        std::vector<double> out;
        for (auto& probe : probes_) out.push_back(probe->snapshot().cpu_s);
        return out;
    }
    std::vector<std::unique_ptr<Probe>> probes_;
    std::vector<double> before_, after_;
};

constexpr std::size_t kBatch = 1000;
constexpr std::size_t kThreads = 2;

// Runs body(t) on kThreads threads and waits for them.
void on_threads(const std::function<void(std::size_t)>& body) {
    std::vector<std::thread> threads;
    for (std::size_t t = 0; t < kThreads; ++t) threads.emplace_back(body, t);
    for (auto& t : threads) t.join();
}

// n messages due now over `queues` (round robin per batch), sent, then leased and acked, each
// phase measured on `nodes`. Fields: <phase>_cpu_us_per_msg and <phase>_cpu_s_by_node.
Json send_and_drain(const Context& ctx, const std::string& variant, const std::string& url,
                    const std::vector<std::string>& nodes, const std::vector<std::string>& queues,
                    std::size_t n) {
    Client client(url, ctx.settings().client_options);
    NodesCpu cpu(nodes);
    const std::size_t batches = (n + kBatch - 1) / kBatch;
    std::vector<Message> batch(kBatch, Message{.payload = payload16()});
    // Connections and the library on every node before the window.
    for (const std::string& q : queues) {
        client.queue(q).send(payload16(), {.delay = std::chrono::hours(1), .id = "warm"});
        client.queue(q).cancel("warm");
    }
    Json out{{"mode", "cluster"},
             {"variant", variant},
             {"n", batches * kBatch},
             {"queues", queues.size()}};
    const auto report = [&](const std::string& phase) {
        out[phase + "_cpu_us_per_msg"] =
            tidy(cpu.total_s() * 1e6 / static_cast<double>(batches * kBatch));
        Json by_node = Json::array();
        for (const double s : cpu.per_node_s()) by_node.push_back(tidy(s));
        out[phase + "_cpu_s_by_node"] = by_node;
    };

    cpu.start();
    std::atomic<std::size_t> next{0};
    on_threads([&](std::size_t) {
        for (std::size_t b = next++; b < batches; b = next++) {
            client.queue(queues[b % queues.size()]).send_batch(batch);
        }
    });
    cpu.stop();
    report("send");

    cpu.start();
    std::atomic<std::size_t> acked{0};
    on_threads([&](std::size_t t) {
        for (std::size_t turn = t; acked.load() < batches * kBatch; ++turn) {
            Leases leases = client.leases(queues[turn % queues.size()]);
            const FetchResult f = leases.fetch(kBatch, std::chrono::seconds(60));
            if (f.deliveries.empty()) continue;
            std::vector<Lease> owned;
            owned.reserve(f.deliveries.size());
            for (const Delivery& d : f.deliveries) owned.push_back(d.lease());
            leases.ack(owned);
            acked += owned.size();
        }
    });
    cpu.stop();
    report("deliver_ack");
    return out;
}

std::vector<std::string> urls_of_primaries(const test::RedisCluster& cluster) {
    std::vector<std::string> out;
    for (const std::size_t p : cluster.primaries()) {
        out.push_back("redis://127.0.0.1:" + std::to_string(cluster.node(p).port()));
    }
    return out;
}

Json shares(const Json& seconds) {
    double sum = 0;
    for (const auto& s : seconds) sum += s.get<double>();
    Json out = Json::array();
    for (const auto& s : seconds) out.push_back(tidy(sum > 0 ? s.get<double>() / sum : 0));
    return out;
}

// The longest single send while `queue`'s slot moves to another primary.
Json slot_move(const Context& ctx, test::RedisCluster& cluster, std::size_t pending) {
    const std::string queue = cluster.name_served_by(cluster.primaries().front(), "move");
    Client client(cluster.seeds_url(), ctx.settings().client_options);
    Queue q = client.queue(queue);
    std::vector<Message> batch(
        kBatch, Message{.payload = payload16(), .options = {.delay = std::chrono::hours(1)}});
    for (std::size_t sent = 0; sent < pending; sent += kBatch) q.send_batch(batch);

    std::atomic<bool> stop{false};
    std::atomic<std::size_t> sends{0};
    std::vector<double> waits_ms;  // the sender's until it is joined
    std::thread sender([&] {
        while (!stop.load()) {
            const auto t0 = SteadyClock::now();
            q.send(payload16(), {.delay = std::chrono::hours(1)});
            waits_ms.push_back(
                std::chrono::duration<double, std::milli>(SteadyClock::now() - t0).count());
            ++sends;
        }
    });
    while (sends.load() == 0) std::this_thread::yield();  // the sender is under way
    const int slot = test::RedisCluster::slot_of("{" + queue + "}");
    const std::size_t to = cluster.primaries().back();
    const auto t0 = SteadyClock::now();
    cluster.migrate_slot(slot, to);
    const double move_ms =
        std::chrono::duration<double, std::milli>(SteadyClock::now() - t0).count();
    stop = true;
    sender.join();
    std::sort(waits_ms.begin(), waits_ms.end());
    return Json{{"pending", pending},
                {"move_ms", tidy(move_ms)},
                {"sends", waits_ms.size()},
                {"send_p50_ms", tidy(percentile_sorted(waits_ms, 50))},
                {"send_max_ms", tidy(waits_ms.back())}};
}

}  // namespace

void run_cluster(Context& ctx) {
    const std::size_t n = ctx.n_or(300'000, 30'000);
    note("cluster: starting 3 primaries");
    test::RedisCluster cluster(test::RedisClusterOptions{.replicas_per_primary = 0});
    const std::vector<std::string> primaries = urls_of_primaries(cluster);

    std::vector<Json> one, spread;
    for (int run = 0; run < ctx.settings().runs; ++run) {
        const std::string q = ctx.fresh_queue("cluster");
        Json line{{"mode", "cluster"}, {"variant", "one_queue"}};
        const Json alone = send_and_drain(ctx, "", ctx.url(), {ctx.url()}, {q}, n);
        const Json on_cluster = send_and_drain(ctx, "", cluster.seeds_url(), primaries, {q}, n);
        line["n"] = alone["n"];
        for (const std::string phase : {"send", "deliver_ack"}) {
            const std::string field = phase + "_cpu_us_per_msg";
            line["standalone_" + field] = alone[field];
            line["cluster_" + field] = on_cluster[field];
            line[phase + "_ratio"] =
                tidy(on_cluster[field].get<double>() / alone[field].get<double>());
        }
        apply_targets(line, {{"send_ratio", false, 1.10}, {"deliver_ack_ratio", false, 1.10}});
        one.push_back(line);

        std::vector<std::string> queues;
        for (int i = 0; i < 30; ++i) queues.push_back(ctx.fresh_queue("spread"));
        Json wide = send_and_drain(ctx, "spread_30", cluster.seeds_url(), primaries, queues, n);
        // Names hash to slots at random: how evenly the 30 fell on the primaries.
        Json by_node = Json::array();
        for (const std::size_t p : cluster.primaries()) {
            by_node.push_back(std::count_if(queues.begin(), queues.end(), [&](const auto& name) {
                return cluster.primary_of_slot(test::RedisCluster::slot_of("{" + name + "}")) == p;
            }));
        }
        wide["queues_by_node"] = by_node;
        wide["send_share_by_node"] = shares(wide["send_cpu_s_by_node"]);
        wide["deliver_ack_share_by_node"] = shares(wide["deliver_ack_cpu_s_by_node"]);
        spread.push_back(wide);
    }
    emit(median_of_runs(one, "send_ratio"));
    emit(median_of_runs(spread, "send_cpu_us_per_msg"));

    for (const std::size_t pending :
         ctx.quick() ? std::vector<std::size_t>{1'000} : std::vector<std::size_t>{1'000, 100'000}) {
        Json line{{"mode", "cluster"}, {"variant", "slot_move_" + std::to_string(pending)}};
        line.update(slot_move(ctx, cluster, pending));
        emit(line);
    }
}

}  // namespace delayq::bench
