// The pusher against a receiver the test starts: what it sends, what each answer does to the
// message, and the limits it keeps.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "json/payload.hpp"
#include "push/signature.hpp"
#include "pusher/pusher_fixture.hpp"

namespace delayq::test {
namespace {

std::int64_t unix_ms(std::chrono::system_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

// Checks the requests' signatures with the Standard Webhooks reference library (npm's
// standardwebhooks, tests/push/verify.sh): true when every one verifies.
bool verified_by_npm(const std::vector<ReceivedRequest>& requests) {
    const std::filesystem::path work = DELAYQ_PUSH_VERIFY_WORK;
    std::filesystem::create_directories(work);
    const std::filesystem::path file = work / "pusher.jsonl";
    {
        std::ofstream out(file);
        for (const ReceivedRequest& r : requests) {
            nlohmann::json line;
            line["secrets"] = {kSecret};
            line["headers"] = {{"webhook-id", r.header("webhook-id")},
                               {"webhook-timestamp", r.header("webhook-timestamp")},
                               {"webhook-signature", r.header("webhook-signature")}};
            line["body_base64"] = json::base64_encode(r.body);
            out << line.dump() << "\n";
        }
    }
    const std::string command = std::string("bash ") + DELAYQ_PUSH_VERIFY + " " + work.string() +
                                " " + file.string() + " >" + (work / "pusher.log").string() +
                                " 2>&1";
    const int status = std::system(command.c_str());
    if (status != 0) {
        std::ifstream log(work / "pusher.log");
        std::cerr << log.rdbuf();
    }
    return status == 0;
}

TEST_F(PusherTest, EachDueMessageArrivesSignedWithItsHeadersAndNeverEarly) {
    PushReceiver receiver;
    ASSERT_EQ(client().push_targets("q").set(target_for(receiver)), PushSetStatus::kCreated);
    Queue q = queue();
    constexpr int kCount = 20;
    for (int i = 0; i < kCount; ++i) {
        q.send("ok:" + std::to_string(i), SendOptions{.delay = std::chrono::milliseconds(20 * i),
                                                      .id = "m-" + std::to_string(i)});
    }
    auto pusher = start_pusher();
    ASSERT_TRUE(
        receiver.wait_for([](const auto& r) { return r.size() >= kCount; }, kEventDeadline));
    ASSERT_TRUE(eventually([&] { return queue_settled(); }));

    const std::vector<ReceivedRequest> got = receiver.requests();
    ASSERT_EQ(got.size(), static_cast<std::size_t>(kCount));  // each once: all were acked
    std::vector<std::string> ids;
    for (const ReceivedRequest& r : got) {
        const std::string id = r.header("Delayq-Message-Id");
        ids.push_back(id);
        EXPECT_EQ(r.method, "POST");
        EXPECT_EQ(r.target, "/hook");
        EXPECT_EQ(r.body, "ok:" + id.substr(2));
        EXPECT_EQ(r.header("Delayq-Queue"), "q");
        EXPECT_EQ(r.header("Delayq-Attempt"), "1");
        EXPECT_EQ(r.header("Content-Type"), "application/octet-stream");
        EXPECT_EQ(r.header("webhook-id"), push::webhook_id("q", id));
        EXPECT_EQ(r.header("webhook-signature").rfind("v1,", 0), 0U);
        EXPECT_EQ(r.header("webhook-signature"),
                  push::WebhookSigner({kSecret}).sign(
                      r.header("webhook-id"), std::stoll(r.header("webhook-timestamp")), r.body));
        // Redis runs on this host: its clock is the receiver's.
        EXPECT_GE(unix_ms(r.received_at), std::stoll(r.header("Delayq-Due"))) << id;
    }
    std::sort(ids.begin(), ids.end());
    EXPECT_EQ(std::unique(ids.begin(), ids.end()), ids.end());
    EXPECT_TRUE(verified_by_npm(got));
    EXPECT_TRUE(eventually([&] { return pusher->stats().queues["q"].acked == kCount; }));
    const push::PushQueueStats s = pusher->stats().queues["q"];
    EXPECT_EQ(s.latency.count, static_cast<std::uint64_t>(kCount));
    EXPECT_EQ(s.retried + s.dead_lettered + s.lost, 0U);
}

TEST_F(PusherTest, OneRequestAtATimeKeepsOneConnectionAlive) {
    PushReceiver receiver;
    PushTarget target = target_for(receiver);
    target.max_in_flight = 1;
    client().push_targets("q").set(target);
    Queue q = queue();
    send_many(q, 10, "ok");
    auto pusher = start_pusher();
    ASSERT_TRUE(receiver.wait_for([](const auto& r) { return r.size() >= 10; }, kEventDeadline));
    ASSERT_TRUE(eventually([&] { return queue_settled(); }));
    EXPECT_EQ(receiver.connections(), 1U);
}

TEST_F(PusherTest, EachAnswerDecidesTheMessagesFate) {
    PushReceiver receiver(PushReceiver::scripted());
    client().push_targets("q").set(target_for(receiver));
    Queue q = queue();
    for (const char* body : {"ok", "fail-once", "busy-once", "bad", "redirect", "close-once"}) {
        q.send(body, SendOptions{.id = std::string(body)});
    }
    auto pusher = start_pusher();
    ASSERT_TRUE(eventually([&] { return queue_settled() && receiver.count() >= 9; }));
    QueueAdmin admin = client().admin("q");

    // A 2xx acks; 500, 429 and a closed connection retry, the 429 not before its Retry-After.
    EXPECT_EQ(with_body(receiver, "ok").size(), 1U);
    for (const char* body : {"fail-once", "busy-once", "close-once"}) {
        const auto tries = with_body(receiver, body);
        ASSERT_EQ(tries.size(), 2U) << body;
        EXPECT_EQ(tries[0].header("Delayq-Attempt"), "1");
        EXPECT_EQ(tries[1].header("Delayq-Attempt"), "2");
        EXPECT_EQ(tries[0].header("webhook-id"), tries[1].header("webhook-id"));
        EXPECT_FALSE(admin.get(body).has_value()) << body << " was acked";
    }
    const auto busy = with_body(receiver, "busy-once");
    EXPECT_GE(busy[1].received_at - busy[0].received_at, std::chrono::seconds(1));

    // A 4xx and a redirect dead-letter at once (rejected), with the answer as the error.
    for (const auto& [body, status] : {std::pair{"bad", "HTTP 400"}, {"redirect", "HTTP 302"}}) {
        EXPECT_EQ(with_body(receiver, body).size(), 1U);
        const auto info = admin.get(body);
        ASSERT_TRUE(info.has_value()) << body;
        EXPECT_EQ(info->state, State::kDead);
        EXPECT_EQ(info->dead_reason, "rejected");
        EXPECT_NE(info->last_error.find(status), std::string::npos) << info->last_error;
    }
    EXPECT_NE(admin.get("bad")->last_error.find("no such order"), std::string::npos);

    ASSERT_TRUE(eventually([&] { return pusher->stats().queues["q"].acked == 4; }));
    const push::PushQueueStats s = pusher->stats().queues["q"];
    EXPECT_EQ(s.retried, 3U);
    EXPECT_EQ(s.dead_lettered, 2U);
    // push get shows the last answer, once the pusher recorded it.
    EXPECT_TRUE(eventually([&] {
        const auto info = client().push_targets("q").get();
        return info && info->last.has_value();
    }));
}

TEST_F(PusherTest, AMessageOutOfAttemptsIsDeadLetteredWithTheLastAnswer) {
    PushReceiver receiver([](const ReceivedRequest&, std::size_t) {
        return ReceiverAnswer{.status = 503, .body = "down for maintenance"};
    });
    client().push_targets("q").set(target_for(receiver));
    queue().send("x", SendOptions{.id = "m", .max_attempts = 3});
    auto pusher = start_pusher();
    ASSERT_TRUE(eventually([&] { return queue_settled(); }));
    EXPECT_EQ(receiver.count(), 3U);
    const auto info = client().admin("q").get("m");
    ASSERT_TRUE(info.has_value());
    EXPECT_EQ(info->state, State::kDead);
    EXPECT_NE(info->last_error.find("HTTP 503"), std::string::npos) << info->last_error;
}

// The pusher keeps only an excerpt of an answer's body; the error must still say it was cut
// (found by the model test: the excerpt ended as if the body did).
TEST_F(PusherTest, AnAnswerLongerThanItsExcerptIsRecordedAsCut) {
    const std::string body(kPushAnswerExcerptBytes + 1, 'e');
    PushReceiver receiver([&](const ReceivedRequest&, std::size_t) {
        return ReceiverAnswer{.status = 404, .body = body};
    });
    client().push_targets("q").set(target_for(receiver));
    queue().send("x", SendOptions{.id = "m"});
    auto pusher = start_pusher();
    ASSERT_TRUE(eventually([&] { return queue_settled(); }));
    const auto info = client().admin("q").get("m");
    ASSERT_TRUE(info.has_value());
    EXPECT_EQ(info->state, State::kDead);
    EXPECT_EQ(info->last_error, "HTTP 404: " + std::string(kPushAnswerExcerptBytes, 'e') + "...");
}

TEST_F(PusherTest, ATimeoutRetriesAndCountsAsAnAttempt) {
    PushReceiver receiver(PushReceiver::scripted());
    PushTarget target = target_for(receiver);
    target.request_timeout = 1s;
    client().push_targets("q").set(target);
    queue().send("slow:3000", SendOptions{.id = "m", .max_attempts = 2});
    auto pusher = start_pusher();
    ASSERT_TRUE(eventually([&] { return queue_settled(); }));
    const auto info = client().admin("q").get("m");
    ASSERT_TRUE(info.has_value());
    EXPECT_EQ(info->state, State::kDead);
    EXPECT_EQ(info->attempts, 2);
    EXPECT_EQ(info->last_error.rfind("timeout after 1s", 0), 0U) << info->last_error;
}

TEST_F(PusherTest, AnAddressTheNetworkRefusesIsCheckedWhereTheNameLeads) {
    PushReceiver receiver;
    PushTarget target = target_for(receiver);
    // A name, not an address: only the connect-time check can see where it leads.
    target.url = "http://localhost:" + std::to_string(receiver.port()) + "/hook";
    client().push_targets("q").set(target);
    queue().send("x", SendOptions{.id = "refused"});
    {
        auto pusher = start_pusher(push::PusherOptions{.network = {.deny_private = true}});
        ASSERT_TRUE(eventually([&] { return queue_settled(); }));
    }
    EXPECT_EQ(receiver.count(), 0U);
    const auto info = client().admin("q").get("refused");
    ASSERT_TRUE(info.has_value());
    EXPECT_EQ(info->state, State::kDead);
    EXPECT_EQ(info->dead_reason, "rejected");
    // Every address localhost resolves to (127.0.0.1, ::1) is loopback.
    EXPECT_EQ(info->last_error.rfind("address refused: ", 0), 0U) << info->last_error;
    EXPECT_NE(info->last_error.find("loopback"), std::string::npos) << info->last_error;

    // The operator's exception opens it.
    queue().send("x", SendOptions{.id = "allowed"});
    auto pusher = start_pusher(push::PusherOptions{
        .network = {.deny_private = true, .allow = {"127.0.0.0/8", "::1/128"}}});
    ASSERT_TRUE(receiver.wait_for([](const auto& r) { return !r.empty(); }, kEventDeadline));
    ASSERT_TRUE(eventually([&] { return queue_settled(); }));
    EXPECT_FALSE(client().admin("q").get("allowed").has_value());
}

TEST_F(PusherTest, TheRateHoldsAcrossTwoPushers) {
    PushReceiver receiver;
    PushTarget target = target_for(receiver);
    target.rate = 10;  // a bucket of 10, then 10 a second
    client().push_targets("q").set(target);
    Queue q = queue();
    send_many(q, 30, "ok");
    Client other(server().url(), with_engine_from_env({}));
    auto first = start_pusher();
    push::Pusher second(other, push::PusherOptions{.discover = 100ms});
    second.start();
    ASSERT_TRUE(receiver.wait_for([](const auto& r) { return r.size() >= 30; }, kEventDeadline));
    const auto got = receiver.requests();
    // 20 beyond the bucket take two seconds of tokens, whichever pusher leases them; the first
    // request may have reached the receiver up to a few hundred ms after its lease.
    EXPECT_GE(got.back().received_at - got.front().received_at, std::chrono::milliseconds(1500));
    ASSERT_TRUE(eventually([&] { return queue_settled(); }));
    EXPECT_EQ(receiver.count(), 30U);
}

TEST_F(PusherTest, AChangedTargetIsFollowedAndARemovedOneIsLeftAlone) {
    PushReceiver before;
    PushReceiver after;
    client().push_targets("q").set(target_for(before));
    client().push_targets("r").set(target_for(after));
    auto pusher = start_pusher();
    queue().send("one");
    ASSERT_TRUE(before.wait_for([](const auto& r) { return r.size() == 1; }, kEventDeadline));

    // Followed within a discovery: until then, a message may still go to the old URL.
    client().push_targets("q").set(target_for(after));
    ASSERT_TRUE(eventually([&] {
        queue().send("two");
        return after.wait_for([](const auto& r) { return !r.empty(); }, 200ms);
    }));
    const std::size_t old_url = before.count();
    queue().send("three");
    ASSERT_TRUE(after.wait_for(
        [](const auto& r) {
            return std::any_of(r.begin(), r.end(),
                               [](const ReceivedRequest& x) { return x.body == "three"; });
        },
        kEventDeadline));
    EXPECT_EQ(before.count(), old_url);

    // Removed: the queue is no longer pushed. Queue r's message, sent after, arrives; q's stays.
    ASSERT_TRUE(client().push_targets("q").remove());
    ASSERT_TRUE(eventually([&] { return pusher->stats().queues.count("q") == 0; }));
    queue().send("kept", SendOptions{.id = "kept"});
    queue("r").send("pushed");
    ASSERT_TRUE(after.wait_for(
        [](const auto& r) {
            return std::any_of(r.begin(), r.end(),
                               [](const ReceivedRequest& x) { return x.body == "pushed"; });
        },
        kEventDeadline));
    const auto kept = client().admin("q").get("kept");
    ASSERT_TRUE(kept.has_value());
    EXPECT_EQ(kept->state, State::kReady);
}

}  // namespace
}  // namespace delayq::test
