// A producer or consumer that talks to `delayq serve` over HTTP instead of Redis, for the fault
// scenarios of the service. It records the same history as delayq_fault_worker (one line per
// event as it happens, so a kill -9 leaves everything up to the kill).
//
//   delayq_fault_http_worker --role producer --name p1 --port PORT --queue q --history FILE
//       [--count 100] [--delay-min-ms 0] [--delay-max-ms 0] [--interval-ms 0] [--seed 1]
//   delayq_fault_http_worker --role consumer --name h1 --port PORT --queue q --history FILE
//       [--visibility-ms 1000] [--handler-sleep-ms 0] [--concurrency 1]
//
// A producer retries a send whose outcome is unknown (no answer, or a 5xx) with the same id
// until it is acknowledged (201, or 200 for a duplicate), then exits 0. A consumer long-polls
// for one message at a time per thread, sleeps, acks, and records the ack's answer; it runs
// until SIGTERM.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "delayq/delayq.hpp"
#include "fault/history.hpp"
#include "fault/worker_args.hpp"
#include "server/support/http_client.hpp"

namespace {

using namespace std::chrono_literals;
using delayq::fault::AckEvent;
using delayq::fault::AckStatus;
using delayq::fault::DeliveryEvent;
using delayq::fault::HistoryWriter;
using delayq::fault::SendEvent;
using delayq::fault::SendStatus;
using delayq::fault::WorkerArgs;
using delayq::test::HttpClient;
using delayq::test::HttpResult;
using nlohmann::json;

std::atomic<bool> g_stop{false};

extern "C" void on_term(int) { g_stop.store(true); }

// One kept-alive connection, opened again after the server closed it or failed.
class Connection {
  public:
    explicit Connection(std::uint16_t port) : port_(port) {}

    // The answer, or nullopt when there was none (the outcome of the request is unknown).
    std::optional<HttpResult> post(const std::string& target, const json& body) {
        try {
            if (!client_) client_ = std::make_unique<HttpClient>(port_);
            HttpResult r = client_->post(target, body);
            if (!r.keep_alive) client_.reset();
            return r;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "POST %s: %s\n", target.c_str(), e.what());
            client_.reset();
            return std::nullopt;
        }
    }

  private:
    std::uint16_t port_;
    std::unique_ptr<HttpClient> client_;
};

int produce(const WorkerArgs& args, HistoryWriter& history) {
    const std::string name = args.text("name");
    const std::string target = "/v1/queues/" + args.text("queue") + "/messages";
    Connection http(static_cast<std::uint16_t>(args.number("port", 0)));
    const long long count = args.number("count", 100);
    const long long delay_min = args.number("delay-min-ms", 0);
    const long long delay_max = std::max(delay_min, args.number("delay-max-ms", delay_min));
    const auto interval = std::chrono::milliseconds(args.number("interval-ms", 0));
    std::mt19937_64 rng(static_cast<std::uint64_t>(args.number("seed", 1)));
    for (long long i = 0; i < count && !g_stop.load(); ++i) {
        const std::string id = name + "-" + std::to_string(i);
        const long long delay = std::uniform_int_distribution<long long>(delay_min, delay_max)(rng);
        const json body = {{"payload", "payload of " + id}, {"delay", delay}, {"id", id}};
        while (!g_stop.load()) {
            const std::optional<HttpResult> r = http.post(target, body);
            if (r && (r->status == 201 || r->status == 200)) {
                history.write(to_line(
                    SendEvent{name, id, r->json()["due_ms"].get<std::int64_t>(),
                              r->status == 200 ? SendStatus::kDuplicate : SendStatus::kOk}));
                break;
            }
            // No answer, or the server could not reach Redis: it may have been stored.
            const bool unknown = !r || r->status >= 500;
            history.write(to_line(
                SendEvent{name, id, 0, unknown ? SendStatus::kUnknown : SendStatus::kFailed}));
            if (r)
                std::fprintf(stderr, "%s: send %s: %u %s\n", name.c_str(), id.c_str(), r->status,
                             r->body.c_str());
            std::this_thread::sleep_for(50ms);
        }
        if (interval.count() > 0) std::this_thread::sleep_for(interval);
    }
    std::printf("%s: done\n", name.c_str());
    return 0;
}

int consume(const WorkerArgs& args, HistoryWriter& history) {
    const std::string name = args.text("name");
    const std::string queue = "/v1/queues/" + args.text("queue");
    const auto port = static_cast<std::uint16_t>(args.number("port", 0));
    const long long visibility_ms = args.number("visibility-ms", 1000);
    const auto sleep = std::chrono::milliseconds(args.number("handler-sleep-ms", 0));
    const json lease_request = {{"max", 1}, {"visibility", visibility_ms}, {"wait", "1s"}};
    const auto loop = [&] {
        Connection http(port);
        while (!g_stop.load()) {
            const std::optional<HttpResult> r = http.post(queue + "/leases", lease_request);
            if (!r || r->status != 200) {
                std::this_thread::sleep_for(100ms);
                continue;
            }
            const json answer = r->json();
            for (const json& d : answer["deliveries"]) {
                const std::string id = d["id"].get<std::string>();
                const std::string lease = d["lease"].get<std::string>();
                const std::uint64_t token = delayq::Lease::parse(lease).value().token();
                history.write(to_line(DeliveryEvent{
                    name, id, d["attempt"].get<int>(), d["due_ms"].get<std::int64_t>(),
                    d["delivered_ms"].get<std::int64_t>(), visibility_ms, token}));
                std::this_thread::sleep_for(sleep);
                const std::optional<HttpResult> acked =
                    http.post(queue + "/ack", {{"leases", json::array({lease})}});
                if (!acked || acked->status != 200) {
                    // Without an answer the ack may or may not have landed: recorded as asked
                    // for, as the library's Consumer records its acks. If it did not land, the
                    // message comes back, which the checker explains by the fault.
                    history.write(to_line(AckEvent{name, id, token, AckStatus::kRequested}));
                    continue;
                }
                const bool ok = acked->json()["results"][0]["status"] == "ok";
                history.write(to_line(
                    AckEvent{name, id, token, ok ? AckStatus::kOk : AckStatus::kLeaseLost}));
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
        ::signal(SIGTERM, on_term);
        ::signal(SIGINT, on_term);
        const std::string role = args.text("role");
        if (role == "producer") return produce(args, history);
        if (role == "consumer") return consume(args, history);
        std::fprintf(stderr, "--role must be producer or consumer\n");
        return 64;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "delayq_fault_http_worker: %s\n", e.what());
        return 1;
    }
}
