// The lease routes over real HTTP: long-polls woken by a send or ended by their wait, the
// lease operations and their outcomes, bad bodies refused with nothing written, and idle
// long-polls that cost Redis nothing more than one, however many.
#include <gtest/gtest.h>

#include <delayq/delayq.hpp>
#include <future>
#include <sstream>
#include <thread>

#include "server/support/service_fixture.hpp"
#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using nlohmann::json;

class HttpLeasesTest : public ServiceTest {
  protected:
    void SetUp() override {
        // No safety net: only a due time, a wake signal or a subscription make a waiter fire.
        start([](server::service::ServiceConfig& c) {
            c.long_polls.waiter.idle_check = std::chrono::hours(1);
        });
    }
    Client client() { return Client(redis().url()); }

    // One delivery leased over HTTP, or a failed test.
    json lease_one(const std::string& queue = "q") {
        const HttpResult r = http().post("/v1/queues/" + queue + "/leases", {{"wait", "20s"}});
        EXPECT_EQ(r.status, 200u) << r.body;
        const json d = r.json()["deliveries"];
        EXPECT_EQ(d.size(), 1u) << r.body;
        return d.empty() ? json() : d[0];
    }

    long long commands_run() {
        std::istringstream lines(redis().command({"INFO", "commandstats"}).str);
        long long total = 0;
        for (std::string line; std::getline(lines, line);) {
            if (!line.starts_with("cmdstat_") || line.starts_with("cmdstat_info:")) continue;
            total += std::stoll(line.substr(line.find("calls=") + 6));
        }
        return total;
    }
};

TEST_F(HttpLeasesTest, ALongPollIsWokenByASendBeforeItsWaitEnds) {
    auto poll = std::async(std::launch::async, [this] {
        HttpClient own(port());
        return own.post("/v1/queues/q/leases", {{"wait", "60s"}, {"max", 10}});
    });
    ASSERT_TRUE(eventually([&] { return service().long_polls().stats().waiting == 1; }));
    client().queue("q").send("wake up", {.id = "m1"});
    const HttpResult r = poll.get();
    ASSERT_EQ(r.status, 200u) << r.body;
    const json d = r.json()["deliveries"];
    ASSERT_EQ(d.size(), 1u);  // answered at the wait's end, it would be empty (and 60 s late)
    EXPECT_EQ(d[0]["id"], "m1");
    EXPECT_EQ(d[0]["payload"], "wake up");
    EXPECT_EQ(d[0]["attempt"], 1);
    EXPECT_TRUE(Lease::parse(d[0]["lease"].get<std::string>()).has_value());
}

TEST_F(HttpLeasesTest, AClientGoneDuringItsLongPollGivesUpItsPlaceAtOnce) {
    const std::string body = R"({"wait": "60s"})";
    {
        HttpClient gone(port());
        gone.send_raw(
            "POST /v1/queues/q/leases HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            "Content-Type: application/json\r\nContent-Length: " +
            std::to_string(body.size()) + "\r\n\r\n" + body);
        ASSERT_TRUE(eventually([&] { return service().long_polls().stats().waiting == 1; }));
    }  // closes its connection without reading an answer
    // Seen at once, not when its 60 s wait ends.
    ASSERT_TRUE(eventually([&] { return service().long_polls().stats().waiting == 0; }));
    ASSERT_TRUE(eventually([&] { return service().connections() == 0; }));

    // So a message sent now goes to the next poller, not to the gone one.
    client().queue("q").send("for the living", {.id = "m1"});
    auto poll = std::async(std::launch::async, [this] {
        HttpClient own(port());
        return own.post("/v1/queues/q/leases", {{"wait", "60s"}});
    });
    const HttpResult r = poll.get();
    ASSERT_EQ(r.status, 200u) << r.body;
    const json d = r.json()["deliveries"];
    ASSERT_EQ(d.size(), 1u) << r.body;
    EXPECT_EQ(d[0]["id"], "m1");
    EXPECT_EQ(d[0]["attempt"], 1);  // never leased to the gone client
}

TEST_F(HttpLeasesTest, ALongPollWithNothingDueAnswersEmptyWhenItsWaitEnds) {
    client().queue("q").send("later", {.delay = std::chrono::hours(1)});
    const auto before = std::chrono::steady_clock::now();
    const HttpResult r = http().post("/v1/queues/q/leases", {{"wait", "300ms"}});
    ASSERT_EQ(r.status, 200u) << r.body;
    EXPECT_EQ(r.json(), json::parse(R"({"deliveries":[]})"));
    EXPECT_GE(std::chrono::steady_clock::now() - before, std::chrono::milliseconds(300));
}

TEST_F(HttpLeasesTest, WithoutAWaitOrABodyItAnswersAtOnce) {
    const HttpResult empty = http().request({.method = "POST", .target = "/v1/queues/q/leases"});
    ASSERT_EQ(empty.status, 200u) << empty.body;
    EXPECT_TRUE(empty.json()["deliveries"].empty());
    client().queue("q").send("a");
    const HttpResult r = http().post("/v1/queues/q/leases", json::object());
    ASSERT_EQ(r.status, 200u) << r.body;
    EXPECT_EQ(r.json()["deliveries"].size(), 1u);
}

TEST_F(HttpLeasesTest, AckExtendAndReleaseAnswerPerLease) {
    client().queue("q").send("a", {.id = "a"});
    client().queue("q").send("b", {.id = "b"});
    client().queue("q").send("c", {.id = "c"});
    const HttpResult leased = http().post("/v1/queues/q/leases", {{"max", 3}});
    ASSERT_EQ(leased.json()["deliveries"].size(), 3u) << leased.body;
    std::vector<std::string> leases;
    const json deliveries = leased.json()["deliveries"];
    for (const auto& d : deliveries) leases.push_back(d["lease"]);

    const HttpResult ext =
        http().post("/v1/queues/q/extend", {{"leases", {leases[0]}}, {"visibility", "10m"}});
    ASSERT_EQ(ext.status, 200u) << ext.body;
    EXPECT_EQ(ext.json()["results"][0]["status"], "ok");
    EXPECT_TRUE(ext.json()["results"][0]["deadline_ms"].is_number());

    const HttpResult acked = http().post("/v1/queues/q/ack", {{"leases", {leases[0], leases[0]}}});
    ASSERT_EQ(acked.status, 200u) << acked.body;
    EXPECT_EQ(acked.json()["results"][0], json({{"lease", leases[0]}, {"status", "ok"}}));
    EXPECT_EQ(acked.json()["results"][1]["status"], "lease_lost");  // named twice: acked once

    const HttpResult released = http().post("/v1/queues/q/release", {{"leases", {leases[1]}}});
    ASSERT_EQ(released.status, 200u) << released.body;
    EXPECT_EQ(released.json()["results"][0]["status"], "ok");
    const QueueStats s = client().admin("q").stats();
    EXPECT_EQ(s.totals.acked, 1u);
    EXPECT_EQ(s.totals.released, 1u);
    EXPECT_EQ(s.ready, 1u);
    EXPECT_EQ(s.in_flight, 1u);
}

TEST_F(HttpLeasesTest, NackAndRejectSayWhatBecameOfTheMessage) {
    client().queue("q").send("a", {.id = "a"});
    const json first = lease_one();
    const HttpResult retry = http().post(
        "/v1/queues/q/nack", {{"lease", first["lease"]}, {"delay", "1h"}, {"error", "busy"}});
    ASSERT_EQ(retry.status, 200u) << retry.body;
    EXPECT_EQ(retry.json()["status"], "retrying");
    EXPECT_TRUE(retry.json()["due_ms"].is_number());
    const HttpResult lost = http().post("/v1/queues/q/nack", {{"lease", first["lease"]}});
    ASSERT_EQ(lost.status, 200u) << lost.body;
    EXPECT_EQ(lost.json(), json::parse(R"({"status":"lease_lost"})"));

    client().queue("q").send("b", {.id = "b"});
    const json second = lease_one();
    const HttpResult dead =
        http().post("/v1/queues/q/reject", {{"lease", second["lease"]}, {"error", "bad"}});
    ASSERT_EQ(dead.status, 200u) << dead.body;
    EXPECT_EQ(dead.json(), json::parse(R"({"status":"dead_lettered"})"));
    EXPECT_EQ(client().admin("q").get("b")->dead_reason, "rejected");
}

// The attack of issue 27: another consumer of the queue guessed the library's lease (sequence
// number and id) and acked the holder's message. Sealed leases make every guess lost, raw or
// with a made-up MAC, in every lease route; the holder's ack then succeeds.
TEST_F(HttpLeasesTest, GuessedLeasesAreLostAndTheHolderStillAcks) {
    client().queue("q").send("a", {.id = "m"});
    const std::string sealed = lease_one()["lease"];
    const std::string raw = sealed.substr(0, sealed.size() - 23);  // ".<22 characters>"
    const std::optional<Lease> real = Lease::parse(raw);
    ASSERT_TRUE(real) << sealed;
    // The attacker's search, around the sequence numbers its own leases showed it.
    std::vector<std::string> guesses;
    const std::uint64_t first = std::max<std::uint64_t>(real->token(), 26) - 25;
    for (std::uint64_t token = first; token <= first + 50; ++token) {
        const std::string guess = Lease("m", token).to_string();
        guesses.push_back(guess);
        guesses.push_back(guess + ".AAAAAAAAAAAAAAAAAAAAAA");
    }
    ASSERT_NE(std::find(guesses.begin(), guesses.end(), raw), guesses.end());
    client().queue("other").send("b", {.id = "m"});
    const std::string elsewhere = lease_one("other")["lease"];
    const auto before = key_dump();
    for (const char* route : {"ack", "release"}) {
        const HttpResult r =
            http().post(std::string("/v1/queues/q/") + route, {{"leases", guesses}});
        ASSERT_EQ(r.status, 200u) << r.body;
        const json results = r.json()["results"];
        ASSERT_EQ(results.size(), guesses.size());
        for (const json& result : results) EXPECT_EQ(result["status"], "lease_lost");
    }
    const HttpResult ext =
        http().post("/v1/queues/q/extend", {{"leases", {raw}}, {"visibility", "1s"}});
    EXPECT_EQ(ext.json()["results"][0]["status"], "lease_lost") << ext.body;
    EXPECT_EQ(http().post("/v1/queues/q/nack", {{"lease", raw}}).json()["status"], "lease_lost");
    EXPECT_EQ(http().post("/v1/queues/q/reject", {{"lease", raw}}).json()["status"], "lease_lost");
    // Sealed for another queue: lost on this one.
    EXPECT_EQ(
        http().post("/v1/queues/q/ack", {{"leases", {elsewhere}}}).json()["results"][0]["status"],
        "lease_lost");
    EXPECT_EQ(key_dump(), before) << "a forged lease changed something";

    const HttpResult held = http().post("/v1/queues/q/ack", {{"leases", {sealed}}});
    EXPECT_EQ(held.json()["results"][0], json({{"lease", sealed}, {"status", "ok"}})) << held.body;
}

// Two servers on one Redis (behind a balancer, or one restarted) share the lease key: each
// takes the other's leases.
TEST_F(HttpLeasesTest, ASecondServerOnTheRedisTakesTheFirstsLeases) {
    server::service::ServiceConfig config;
    config.redis_url = redis().url();
    config.listen = {"127.0.0.1", 0};
    config.limits.io_threads = 1;
    config.worker_threads = 2;
    server::service::Service second(std::move(config));
    second.start();
    HttpClient other(second.port());
    client().queue("q").send("a", {.id = "a"});
    client().queue("q").send("b", {.id = "b"});
    const std::string first_lease = lease_one()["lease"];
    const HttpResult leased = other.post("/v1/queues/q/leases", json::object());
    ASSERT_EQ(leased.json()["deliveries"].size(), 1u) << leased.body;
    const std::string second_lease = leased.json()["deliveries"][0]["lease"];
    const HttpResult by_second = other.post("/v1/queues/q/ack", {{"leases", {first_lease}}});
    EXPECT_EQ(by_second.json()["results"][0]["status"], "ok") << by_second.body;
    const HttpResult by_first = http().post("/v1/queues/q/ack", {{"leases", {second_lease}}});
    EXPECT_EQ(by_first.json()["results"][0]["status"], "ok") << by_first.body;
    EXPECT_EQ(client().admin("q").stats().totals.acked, 2u);
    second.stop();
}

TEST_F(HttpLeasesTest, BadBodiesAre400AndWriteNothing) {
    client().queue("q").send("a", {.id = "a"});
    const auto before = key_dump();
    const std::vector<std::pair<std::string, json>> cases = {
        {"/v1/queues/q/leases", {{"max", 0}}},
        {"/v1/queues/q/leases", {{"wait", "61s"}}},
        {"/v1/queues/q/leases", {{"visibility", "soon"}}},
        {"/v1/queues/q/leases", {{"count", 1}}},
        {"/v1/queues/q/ack", {{"leases", {"nope"}}}},
        {"/v1/queues/q/ack", json::object()},
        {"/v1/queues/q/extend", {{"leases", {Lease("a", 1).to_string()}}}},
        {"/v1/queues/q/release", {{"leases", json::array()}}},
        {"/v1/queues/q/nack", {{"delay", "1s"}}},
        {"/v1/queues/q/reject", {{"lease", Lease("a", 1).to_string()}, {"delay", "1s"}}},
    };
    for (const auto& [target, body] : cases) {
        const HttpResult r = http().post(target, body);
        EXPECT_EQ(r.status, 400u) << target << " " << body.dump() << " -> " << r.body;
        EXPECT_EQ(r.code(), "bad_request") << r.body;
    }
    const HttpResult not_json = http().request({.method = "POST",
                                                .target = "/v1/queues/q/ack",
                                                .body = "{",
                                                .content_type = "application/json"});
    EXPECT_EQ(not_json.status, 400u);
    const HttpResult bad_queue = http().post("/v1/queues/a%20b/leases", {{"wait", "1s"}});
    EXPECT_EQ(bad_queue.status, 400u) << bad_queue.body;
    EXPECT_EQ(key_dump(), before);
}

// The issue's figure: idle long-polls cost Redis what one idle Consumer costs, one fetch per
// idle check, however many there are. With the safety net on (1 s), the commands Redis runs
// while a thousand polls arrive and wait stay within one fetch's commands per idle check of the
// time that took; a thousand polls each fetching once would be far beyond it.
TEST_F(HttpLeasesTest, AThousandIdleLongPollsCostRedisWhatOneCosts) {
    constexpr std::size_t kPolls = 1000;
    constexpr auto kIdleCheck = std::chrono::seconds(1);
    stop_service();
    start([&](server::service::ServiceConfig& c) { c.long_polls.waiter.idle_check = kIdleCheck; });
    const std::string body = R"({"wait": "60s"})";
    const std::string request =
        "POST /v1/queues/q/leases HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Content-Type: application/json\r\nContent-Length: " +
        std::to_string(body.size()) + "\r\n\r\n" + body;
    // Raw requests on their own connections, answers read at the end: no thread per poll.
    std::vector<std::unique_ptr<HttpClient>> clients;
    const auto poll = [&] {
        clients.push_back(std::make_unique<HttpClient>(port()));
        clients.back()->send_raw(request);
    };
    const auto settled = [&](std::size_t waiting) {
        return eventually([&] {
            const auto s = service().long_polls().stats();
            return s.waiting == waiting && s.fetching == 0;
        });
    };

    // What one fetch costs Redis, in commands: measured over the idle checks of one poll.
    poll();
    ASSERT_TRUE(settled(1));
    const auto fetches = [&] { return service().long_polls().stats().fetches; };
    const std::uint64_t fetches_before = fetches();
    const long long commands_before = commands_run();
    ASSERT_TRUE(
        eventually([&] { return fetches() >= fetches_before + 2; }, std::chrono::seconds(30)));
    ASSERT_TRUE(settled(1));
    const std::uint64_t measured_fetches = fetches() - fetches_before;
    const long long per_fetch =
        (commands_run() - commands_before + static_cast<long long>(measured_fetches) - 1) /
        static_cast<long long>(measured_fetches);
    ASSERT_GE(per_fetch, 1);

    const auto started = std::chrono::steady_clock::now();
    const long long commands_at_start = commands_run();
    const std::uint64_t fetches_at_start = fetches();
    for (std::size_t i = 1; i < kPolls; ++i) poll();
    ASSERT_TRUE(settled(kPolls));
    const long long commands = commands_run() - commands_at_start;
    const std::uint64_t window_fetches = fetches() - fetches_at_start;
    const auto elapsed = std::chrono::steady_clock::now() - started;
    // The waiter fires at most once per idle check, plus once for a firing under way at the start.
    const long long idle_checks = static_cast<long long>(elapsed / kIdleCheck) + 2;
    EXPECT_LE(static_cast<long long>(window_fetches), idle_checks);
    RecordProperty("redis_commands", std::to_string(commands));
    RecordProperty("bound", std::to_string(per_fetch * idle_checks));
    RecordProperty(
        "elapsed_ms",
        std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count()));
    EXPECT_LE(commands, per_fetch * idle_checks)
        << kPolls << " polls over " << std::chrono::duration<double>(elapsed).count() << " s";

    // A send wakes one of them; stopping the service answers the rest, empty.
    client().queue("q").send("m");
    ASSERT_TRUE(eventually([&] { return service().long_polls().stats().waiting == kPolls - 1; }));
    stop_service();
    std::size_t delivered = 0;
    for (auto& c : clients) {
        const HttpResult r = c->read_answer();
        ASSERT_EQ(r.status, 200u) << r.body;
        delivered += r.json()["deliveries"].size();
    }
    EXPECT_EQ(delivered, 1u);
}

// One consume token could hold every poll slot and a waiter per name it made up.
TEST_F(HttpLeasesTest, PollsBeyondATokensShareAre503WithRetryAfter) {
    stop_service();
    const std::string greedy = add_token("greedy", "consume", "*");
    const std::string other = add_token("other", "consume", "*");
    start([this](server::service::ServiceConfig& c) {
        c.auth_file = auth_file();
        c.long_polls.max_queues_per_token = 1;
        c.long_polls.max_polls_per_token = 3;
    });
    std::vector<std::unique_ptr<HttpClient>> waiting;
    const auto hold = [&](const std::string& queue, const std::string& token) {
        const std::string body = R"({"wait": "60s"})";
        waiting.push_back(std::make_unique<HttpClient>(port()));
        waiting.back()->send_raw("POST /v1/queues/" + queue +
                                 "/leases HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                                 token + "\r\nContent-Type: application/json\r\nContent-Length: " +
                                 std::to_string(body.size()) + "\r\n\r\n" + body);
    };
    const auto refused = [&](const std::string& queue, const std::string& token) {
        const HttpResult r =
            http().post("/v1/queues/" + queue + "/leases", {{"wait", "1s"}}, token);
        EXPECT_EQ(r.status, 503u) << r.body;
        EXPECT_EQ(r.code(), "too_many_polls");
        EXPECT_EQ(r.header("retry-after"), "1");
    };
    hold("a", greedy);
    hold("a", greedy);
    ASSERT_TRUE(eventually([&] { return service().long_polls().stats().waiting == 2; }));
    refused("b", greedy);  // a second queue
    hold("a", greedy);
    ASSERT_TRUE(eventually([&] { return service().long_polls().stats().waiting == 3; }));
    refused("a", greedy);  // a fourth poll
    // The other token is served; and the held polls still get what is sent.
    hold("b", other);
    ASSERT_TRUE(eventually([&] { return service().long_polls().stats().waiting == 4; }));
    EXPECT_EQ(service().long_polls().stats().refused, 2u);
    EXPECT_EQ(service().figures().long_polls_refused, 2u);
    client().queue("b").send("for other");
    const HttpResult r = waiting.back()->read_answer();
    ASSERT_EQ(r.status, 200u) << r.body;
    EXPECT_EQ(r.json()["deliveries"].size(), 1u);
}

TEST_F(HttpLeasesTest, LeaseRoutesNeedTheConsumeScopeOnTheQueue) {
    stop_service();
    const std::string consumer = add_token("worker", "consume", "orders*");
    const std::string producer = add_token("shop", "send", "*");
    start([this](server::service::ServiceConfig& c) { c.auth_file = auth_file(); });
    EXPECT_EQ(http().post("/v1/queues/orders-eu/leases", json::object(), consumer).status, 200u);
    EXPECT_EQ(http().post("/v1/queues/billing/leases", json::object(), consumer).status, 403u);
    EXPECT_EQ(http().post("/v1/queues/orders/leases", json::object(), producer).status, 403u);
    EXPECT_EQ(http().post("/v1/queues/orders/leases", json::object()).status, 401u);
    EXPECT_EQ(http().post("/v1/queues/orders/ack", {{"leases", {"x"}}}, producer).status, 403u);
}

}  // namespace
}  // namespace delayq::test
