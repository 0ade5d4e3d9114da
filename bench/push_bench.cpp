// delayq-push-bench: push delivery (push/) to a local receiver that answers at once
// (tests/support/push_receiver.*, one thread), on a redis-server of its own.
//   throughput: n messages due now, one pusher; from its start to the last ack.
//   lateness:   a steady rate of messages due 1 s after their send; per request, the
//               receiver's clock when the request was read minus its Delayq-Due (Redis clock,
//               the same host's).
// Prints one JSON object per line on stdout.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "delayq/delayq.hpp"
#include "push/pusher.hpp"
#include "support/push_receiver.hpp"
#include "support/redis_server.hpp"

namespace delayq::bench {
namespace {

using Json = nlohmann::ordered_json;
using Steady = std::chrono::steady_clock;

struct Args {
    std::string mode = "throughput,lateness";
    std::size_t n = 200000;
    std::size_t max_in_flight = 1000;  // the target's, and the pusher's
    double rate = 1000;
    int duration_s = 20;
    int runs = 1;
};

double process_cpu_s() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    const auto seconds = [](const timeval& t) {
        return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    return seconds(u.ru_utime) + seconds(u.ru_stime);
}

double redis_cpu_s(const test::RedisServer& redis) {
    std::istringstream info(redis.command({"INFO", "cpu"}).str);
    double total = 0;
    for (std::string line; std::getline(info, line);) {
        for (const char* field : {"used_cpu_sys:", "used_cpu_user:"}) {
            if (line.rfind(field, 0) == 0) total += std::stod(line.substr(std::strlen(field)));
        }
    }
    return total;
}

bool queue_empty(const Client& client, const std::string& queue) {
    const QueueStats s = client.admin(queue).stats();
    return s.scheduled == 0 && s.ready == 0 && s.in_flight == 0;
}

void set_target(const Client& client, const std::string& queue, const test::PushReceiver& receiver,
                std::size_t max_in_flight) {
    PushTarget target;
    target.url = receiver.url();
    target.max_in_flight = max_in_flight;
    target.secrets = {"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"};  // signing is part of the cost
    client.push_targets(queue).set(target);
}

Json throughput(const test::RedisServer& redis, const Args& a, int run) {
    const std::string queue = "push-tp-" + std::to_string(run);
    Client client(redis.url());
    test::PushReceiver receiver({}, 1, false);
    set_target(client, queue, receiver, a.max_in_flight);
    Queue q = client.queue(queue);
    const std::vector<Message> batch(1000, Message{"{\"order\": 42, \"action\": \"expire\"}", {}});
    for (std::size_t sent = 0; sent < a.n; sent += batch.size()) q.send_batch(batch);

    const double redis_before = redis_cpu_s(redis);
    const double self_before = process_cpu_s();
    const auto start = Steady::now();
    push::Pusher pusher(client,
                        push::PusherOptions{.queues = {queue}, .max_in_flight = a.max_in_flight});
    pusher.start();
    while (!(receiver.count() >= a.n && queue_empty(client, queue))) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    const double seconds = std::chrono::duration<double>(Steady::now() - start).count();
    const double redis_cpu = redis_cpu_s(redis) - redis_before;
    const double self_cpu = process_cpu_s() - self_before;
    pusher.stop();
    pusher.wait();
    const push::PushQueueStats s = pusher.stats().queues[queue];
    return Json{{"mode", "push_throughput"},
                {"n", a.n},
                {"max_in_flight", a.max_in_flight},
                {"seconds", seconds},
                {"msgs_per_s", static_cast<double>(a.n) / seconds},
                {"requests", receiver.count()},
                {"acked", s.acked},
                {"retried", s.retried},
                {"redis_cpu_us_per_msg", redis_cpu * 1e6 / static_cast<double>(a.n)},
                {"bench_cpu_us_per_msg", self_cpu * 1e6 / static_cast<double>(a.n)}};
}

double percentile(std::vector<std::int64_t> v, double p) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const auto at = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1));
    return static_cast<double>(v[at]);
}

Json lateness(const test::RedisServer& redis, const Args& a, int run) {
    const std::string queue = "push-late-" + std::to_string(run);
    Client client(redis.url());
    test::PushReceiver receiver({}, 1, false);
    set_target(client, queue, receiver, a.max_in_flight);
    push::Pusher pusher(client, push::PusherOptions{.queues = {queue}});
    pusher.start();
    Queue q = client.queue(queue);
    // Every millisecond, what the rate owes since the start; each due 1 s after its send.
    const auto start = Steady::now();
    const auto end = start + std::chrono::seconds(a.duration_s);
    std::size_t sent = 0;
    for (auto now = start; now < end; now = Steady::now()) {
        const auto owed =
            static_cast<std::size_t>(a.rate * std::chrono::duration<double>(now - start).count());
        for (; sent < owed; ++sent) q.send("tick", SendOptions{.delay = std::chrono::seconds(1)});
        std::this_thread::sleep_until(now + std::chrono::milliseconds(1));
    }
    while (!(receiver.count() >= sent && queue_empty(client, queue))) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    pusher.stop();
    pusher.wait();
    const std::vector<std::int64_t> late = receiver.lateness_us();
    const auto early =
        std::count_if(late.begin(), late.end(), [](std::int64_t v) { return v < 0; });
    return Json{{"mode", "push_lateness"},
                {"rate", a.rate},
                {"duration_s", a.duration_s},
                {"messages", sent},
                {"requests", late.size()},
                {"p50_ms", percentile(late, 0.5) / 1000},
                {"p99_ms", percentile(late, 0.99) / 1000},
                {"max_ms", percentile(late, 1.0) / 1000},
                {"early", early}};
}

int main_impl(int argc, char** argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const auto next = [&]() -> std::string {
            if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
            return argv[++i];
        };
        if (arg == "--mode") {
            a.mode = next();
        } else if (arg == "--n") {
            a.n = std::stoul(next());
        } else if (arg == "--max-in-flight") {
            a.max_in_flight = std::stoul(next());
        } else if (arg == "--rate") {
            a.rate = std::stod(next());
        } else if (arg == "--duration") {
            a.duration_s = std::stoi(next());
        } else if (arg == "--runs") {
            a.runs = std::stoi(next());
        } else if (arg == "--quick") {
            a.n = 2000;
            a.duration_s = 2;
        } else {
            std::cerr << "usage: delayq-push-bench [--mode throughput,lateness] [--n N] "
                         "[--max-in-flight N] [--rate R] [--duration S] [--runs R] [--quick]\n";
            return 2;
        }
    }
    test::RedisServer redis;
    for (int run = 0; run < a.runs; ++run) {
        if (a.mode.find("throughput") != std::string::npos) {
            std::cout << throughput(redis, a, run).dump() << std::endl;
        }
        if (a.mode.find("lateness") != std::string::npos) {
            std::cout << lateness(redis, a, run).dump() << std::endl;
        }
    }
    return 0;
}

}  // namespace
}  // namespace delayq::bench

int main(int argc, char** argv) {
    try {
        return delayq::bench::main_impl(argc, argv);
    } catch (const std::exception& e) {
        std::cerr << "delayq-push-bench: " << e.what() << "\n";
        return 1;
    }
}
