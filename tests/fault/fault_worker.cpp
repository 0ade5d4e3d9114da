// A producer or consumer process for the fault scenarios, which kill, stop and disconnect it.
// It records what it did and saw in its history file (see fault/history.hpp), one line per
// event as it happens, so a kill -9 leaves everything up to the kill.
//
//   delayq_fault_worker --role producer --name p1 --redis URL --queue q --history FILE
//       [--count 100] [--delay-min-ms 0] [--delay-max-ms 0] [--interval-ms 0] [--seed 1]
//       [--wait-replicas N --wait-timeout-ms T]
//   delayq_fault_worker --role consumer --name c1 --redis URL --queue q --history FILE
//       [--visibility-ms 1000] [--handler-sleep-ms 0] [--concurrency 1] [--idle-check-ms 500]
//       [--manual-ack]
//   common: [--command-timeout-ms 500] [--connect-timeout-ms 500]
//
// A producer retries a send whose outcome is unknown with the same id until it is acknowledged,
// then exits 0. A consumer runs until SIGTERM. By default it is a delayq::Consumer whose handler
// sleeps and returns Ack; with --manual-ack it fetches and acks itself (no lease extension), so
// the history records whether each ack was accepted.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "delayq/delayq.hpp"
#include "fault/history.hpp"
#include "fault/worker_args.hpp"

namespace {

using namespace std::chrono_literals;
using delayq::fault::AckEvent;
using delayq::fault::AckStatus;
using delayq::fault::DeliveryEvent;
using delayq::fault::HistoryWriter;
using delayq::fault::SendEvent;
using delayq::fault::SendStatus;
using delayq::fault::WorkerArgs;

std::atomic<bool> g_stop{false};

extern "C" void on_term(int) { g_stop.store(true); }

std::int64_t unix_ms(delayq::TimePoint t) { return t.time_since_epoch().count(); }

delayq::Client make_client(const WorkerArgs& args) {
    delayq::ClientOptions options;
    options.command_timeout = std::chrono::milliseconds(args.number("command-timeout-ms", 500));
    options.connect_timeout = std::chrono::milliseconds(args.number("connect-timeout-ms", 500));
    return delayq::Client(args.text("redis"), options);
}

int produce(const WorkerArgs& args, HistoryWriter& history) {
    const std::string name = args.text("name");
    delayq::Client client = make_client(args);
    // Durable: a send is acknowledged once the replicas confirmed it; DurabilityError leaves
    // its outcome unknown (stored, perhaps not replicated), and it is sent again with its id.
    delayq::QueueOptions queue_options;
    queue_options.durability =
        delayq::Durability{.replicas = static_cast<int>(args.number("wait-replicas", 0)),
                           .timeout = std::chrono::milliseconds(args.number("wait-timeout-ms", 0))};
    delayq::Queue queue = client.queue(args.text("queue"), queue_options);
    const long long count = args.number("count", 100);
    const long long delay_min = args.number("delay-min-ms", 0);
    const long long delay_max = std::max(delay_min, args.number("delay-max-ms", delay_min));
    const auto interval = std::chrono::milliseconds(args.number("interval-ms", 0));
    std::mt19937_64 rng(static_cast<std::uint64_t>(args.number("seed", 1)));
    for (long long i = 0; i < count && !g_stop.load(); ++i) {
        const std::string id = args.text("id-prefix", name) + "-" + std::to_string(i);
        const delayq::SendOptions options{
            .delay = std::chrono::milliseconds(
                std::uniform_int_distribution<long long>(delay_min, delay_max)(rng)),
            .id = id};
        while (!g_stop.load()) {
            try {
                const delayq::SendResult r = queue.send("payload of " + id, options);
                history.write(
                    to_line(SendEvent{name, id, unix_ms(r.due),
                                      r.duplicate ? SendStatus::kDuplicate : SendStatus::kOk}));
                break;
            } catch (const delayq::ConnectionError& e) {
                history.write(to_line(SendEvent{name, id, 0, SendStatus::kUnknown}));
                std::fprintf(stderr, "%s: send %s: %s\n", name.c_str(), id.c_str(), e.what());
            } catch (const delayq::DurabilityError& e) {
                history.write(to_line(SendEvent{name, id, 0, SendStatus::kUnknown}));
                std::fprintf(stderr, "%s: send %s: %s\n", name.c_str(), id.c_str(), e.what());
            } catch (const delayq::ServerError& e) {
                history.write(to_line(SendEvent{name, id, 0, SendStatus::kFailed}));
                std::fprintf(stderr, "%s: send %s: %s\n", name.c_str(), id.c_str(), e.what());
            }
            std::this_thread::sleep_for(50ms);
        }
        if (interval.count() > 0) std::this_thread::sleep_for(interval);
    }
    std::printf("%s: done\n", name.c_str());
    return 0;
}

DeliveryEvent delivery_event(const std::string& name, const delayq::Delivery& d,
                             long long visibility_ms) {
    return DeliveryEvent{
        name,          d.id(),           d.attempt(), unix_ms(d.due()), unix_ms(d.delivered_at()),
        visibility_ms, d.lease().token()};
}

int consume(const WorkerArgs& args, HistoryWriter& history) {
    const std::string name = args.text("name");
    delayq::Client client = make_client(args);
    delayq::Leases leases = client.leases(args.text("queue"));
    const long long visibility_ms = args.number("visibility-ms", 1000);
    const auto sleep = std::chrono::milliseconds(args.number("handler-sleep-ms", 0));
    const auto concurrency = static_cast<std::size_t>(args.number("concurrency", 1));

    delayq::ConsumerOptions options;
    options.concurrency = concurrency;
    options.visibility_timeout = std::chrono::milliseconds(visibility_ms);
    options.idle_check = std::chrono::milliseconds(args.number("idle-check-ms", 500));
    options.shutdown_timeout = 10s;
    options.backoff = delayq::Backoff{.initial = 100ms, .max = 1s};
    options.stop_on_signals = true;
    delayq::Consumer consumer(
        leases,
        [&](const delayq::Delivery& d) -> delayq::Outcome {
            history.write(to_line(delivery_event(name, d, visibility_ms)));
            std::this_thread::sleep_for(sleep);
            history.write(
                to_line(AckEvent{name, d.id(), d.lease().token(), AckStatus::kRequested}));
            return delayq::Ack{};
        },
        options);
    consumer.run();
    const delayq::ConsumerStats s = consumer.stats();
    std::printf(
        "%s: stats fetched=%llu acked=%llu released=%llu leases_lost=%llu redis_errors=%llu\n",
        name.c_str(), static_cast<unsigned long long>(s.fetched),
        static_cast<unsigned long long>(s.acked), static_cast<unsigned long long>(s.released),
        static_cast<unsigned long long>(s.leases_lost),
        static_cast<unsigned long long>(s.redis_errors));
    return 0;
}

// Fetch, sleep, ack, one message at a time per thread, recording each ack's answer.
int consume_manually(const WorkerArgs& args, HistoryWriter& history) {
    const std::string name = args.text("name");
    delayq::Client client = make_client(args);
    delayq::Leases leases = client.leases(args.text("queue"));
    const long long visibility_ms = args.number("visibility-ms", 1000);
    const auto sleep = std::chrono::milliseconds(args.number("handler-sleep-ms", 0));
    ::signal(SIGTERM, on_term);
    ::signal(SIGINT, on_term);
    const auto loop = [&] {
        while (!g_stop.load()) {
            try {
                const delayq::FetchResult r =
                    leases.fetch(1, std::chrono::milliseconds(visibility_ms));
                if (r.deliveries.empty()) {
                    std::this_thread::sleep_for(20ms);
                    continue;
                }
                const delayq::Delivery& d = r.deliveries.front();
                history.write(to_line(delivery_event(name, d, visibility_ms)));
                std::this_thread::sleep_for(sleep);
                const delayq::LeaseResult acked = leases.ack(d.lease());
                history.write(to_line(AckEvent{name, d.id(), d.lease().token(),
                                               acked.status == delayq::LeaseStatus::kAcked
                                                   ? AckStatus::kOk
                                                   : AckStatus::kLeaseLost}));
            } catch (const delayq::ConnectionError& e) {
                std::fprintf(stderr, "%s: %s\n", name.c_str(), e.what());
                std::this_thread::sleep_for(100ms);
            }
        }
    };
    std::vector<std::thread> threads;
    for (long long i = 0; i < args.number("concurrency", 1); ++i) threads.emplace_back(loop);
    for (auto& t : threads) t.join();
    std::printf("%s: stopped\n", name.c_str());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const WorkerArgs args(argc, argv);
        HistoryWriter history(args.text("history"));
        const std::string role = args.text("role");
        // What this process's wall clock says (a test checks that faketime shifted it).
        std::printf(
            "%s: local clock %lld\n", args.text("name").c_str(),
            static_cast<long long>(unix_ms(std::chrono::time_point_cast<std::chrono::milliseconds>(
                std::chrono::system_clock::now()))));
        std::fflush(stdout);
        if (role == "producer") {
            ::signal(SIGTERM, on_term);
            return produce(args, history);
        }
        if (role == "consumer") {
            return args.flag("manual-ack") ? consume_manually(args, history)
                                           : consume(args, history);
        }
        std::fprintf(stderr, "--role must be producer or consumer\n");
        return 64;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "delayq_fault_worker: %s\n", e.what());
        return 1;
    }
}
