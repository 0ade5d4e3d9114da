// A queue's push target in Redis (Client::push_targets): set, read without its credentials,
// read whole by a pusher, removed with the queue; and leases within its limits, which every
// pusher of the queue shares because they are counted in Redis.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using PushTargetsTest = RedisTest;

// 24 bytes, as the Standard Webhooks examples make them.
constexpr const char* kSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
constexpr const char* kOtherSecret = "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYX";

PushTarget sample_target() {
    PushTarget t;
    t.url = "https://hooks.example.com/delayq?team=7";
    t.method = PushMethod::kPut;
    t.content_type = "application/json";
    t.headers = {{"Authorization", "Bearer s3cr3t"}, {"X-Team", "7"}};
    t.request_timeout = 4s;
    t.max_in_flight = 50;
    t.rate = 12.5;
    t.secrets = {kSecret, kOtherSecret};
    return t;
}

TEST_F(PushTargetsTest, SetGetReadAndRemove) {
    PushTargets push = client().push_targets("q");
    EXPECT_FALSE(push.get().has_value());
    const PushTarget target = sample_target();
    EXPECT_EQ(push.set(target), PushSetStatus::kCreated);
    EXPECT_EQ(push.set(target), PushSetStatus::kUnchanged);

    const auto info = push.get();
    ASSERT_TRUE(info.has_value());
    EXPECT_EQ(info->url, target.url);
    EXPECT_EQ(info->method, PushMethod::kPut);
    EXPECT_EQ(info->content_type, "application/json");
    EXPECT_EQ(info->header_names, (std::vector<std::string>{"Authorization", "X-Team"}));
    EXPECT_EQ(info->request_timeout, 4s);
    EXPECT_EQ(info->max_in_flight, 50U);
    EXPECT_EQ(info->rate, 12.5);
    EXPECT_EQ(info->secrets, 2U);
    EXPECT_GT(info->updated, TimePoint{});
    EXPECT_FALSE(info->last.has_value());

    // The credentials are in the write-only key only, never in what a reading role reads.
    for (const auto& key : queue_keys()) {
        const std::string dump = server().command({"DUMP", key}).str;
        EXPECT_EQ(dump.find("s3cr3t"), std::string::npos) << key;
        EXPECT_EQ(dump.find("MfKQ9r8G"), std::string::npos) << key;
    }
    EXPECT_EQ(server().integer({"EXISTS", "dqs:{q}:push"}), 1);

    const auto whole = push.read_for_pusher();
    ASSERT_TRUE(whole.has_value());
    EXPECT_EQ(whole->target, target);
    EXPECT_EQ(whole->updated, info->updated);

    PushTarget changed = target;
    changed.secrets = {kOtherSecret};
    EXPECT_EQ(push.set(changed), PushSetStatus::kUpdated);
    EXPECT_EQ(push.read_for_pusher()->target.secrets, (std::vector<std::string>{kOtherSecret}));
    changed.headers[0].value = "Bearer other";  // a credential alone changes the target
    EXPECT_EQ(push.set(changed), PushSetStatus::kUpdated);

    EXPECT_TRUE(push.remove());
    EXPECT_FALSE(push.get().has_value());
    EXPECT_FALSE(push.read_for_pusher().has_value());
    EXPECT_FALSE(push.remove());
    EXPECT_EQ(server().integer({"EXISTS", "dqs:{q}:push"}), 0);
}

TEST_F(PushTargetsTest, ABadTargetIsRefusedAndWritesNothing) {
    PushTargets push = client().push_targets("q");
    std::vector<std::pair<std::string, PushTarget>> bad;
    auto with = [&](const std::string& what, auto change) {
        PushTarget t = sample_target();
        change(t);
        bad.emplace_back(what, t);
    };
    with("no url", [](PushTarget& t) { t.url = ""; });
    with("ftp", [](PushTarget& t) { t.url = "ftp://example.com/x"; });
    with("no scheme", [](PushTarget& t) { t.url = "example.com/x"; });
    with("user info", [](PushTarget& t) { t.url = "https://u:p@example.com/"; });
    with("fragment", [](PushTarget& t) { t.url = "https://example.com/#x"; });
    with("space", [](PushTarget& t) { t.url = "https://example.com/a b"; });
    with("port 0", [](PushTarget& t) { t.url = "https://example.com:0/"; });
    with("port 65536", [](PushTarget& t) { t.url = "https://example.com:65536/"; });
    with("link-local", [](PushTarget& t) { t.url = "http://169.254.169.254/latest/meta-data"; });
    with("link-local v6", [](PushTarget& t) { t.url = "http://[fe80::1]/x"; });
    with("metadata name", [](PushTarget& t) { t.url = "http://metadata.google.internal/x"; });
    with("too long", [](PushTarget& t) {
        t.url = "https://example.com/" + std::string(kMaxPushUrlBytes, 'a');
    });
    with("content type", [](PushTarget& t) { t.content_type = "text/plain\r\nX: y"; });
    with("header name", [](PushTarget& t) { t.headers = {{"Bad Name", "v"}}; });
    with("header value", [](PushTarget& t) { t.headers = {{"X-A", "v\r\nX-B: w"}}; });
    with("reserved header", [](PushTarget& t) { t.headers = {{"Content-Length", "1"}}; });
    with("signature header", [](PushTarget& t) { t.headers = {{"webhook-signature", "v1,x"}}; });
    with("delayq header", [](PushTarget& t) { t.headers = {{"Delayq-Attempt", "1"}}; });
    with("twice", [](PushTarget& t) { t.headers = {{"X-A", "1"}, {"x-a", "2"}}; });
    with("many headers", [](PushTarget& t) {
        t.headers.clear();
        for (std::size_t i = 0; i <= kMaxPushHeaders; ++i) {
            t.headers.push_back({"X-" + std::to_string(i), "v"});
        }
    });
    with("timeout short", [](PushTarget& t) { t.request_timeout = 999ms; });
    with("timeout long", [](PushTarget& t) { t.request_timeout = kMaxPushRequestTimeout + 1ms; });
    with("in flight 0", [](PushTarget& t) { t.max_in_flight = 0; });
    with("in flight many", [](PushTarget& t) { t.max_in_flight = kMaxPushInFlight + 1; });
    with("rate negative", [](PushTarget& t) { t.rate = -1; });
    with("rate NaN", [](PushTarget& t) { t.rate = std::nan(""); });
    with("rate huge", [](PushTarget& t) { t.rate = kMaxPushRate * 2; });
    with("secret prefix", [](PushTarget& t) { t.secrets = {"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}; });
    with("secret short", [](PushTarget& t) { t.secrets = {"whsec_AAECAwQFBgcICQoLDA0ODxAREhMU"}; });
    with("many secrets", [](PushTarget& t) { t.secrets.assign(kMaxPushSecrets + 1, kSecret); });
    for (const auto& [what, target] : bad) {
        EXPECT_THROW(push.set(target), InvalidArgument) << what;
        EXPECT_THROW(validate_push_target(target), InvalidArgument) << what;
    }
    EXPECT_TRUE(queue_keys().empty());
    EXPECT_EQ(server().integer({"EXISTS", "dqs:{q}:push"}), 0);
}

TEST_F(PushTargetsTest, ASecretIsNeverQuotedInARefusal) {
    PushTarget t = sample_target();
    t.secrets = {"whsec_NotBase64!!NotBase64!!NotBase64!!"};
    try {
        validate_push_target(t);
        ADD_FAILURE() << "not refused";
    } catch (const InvalidArgument& e) {
        EXPECT_EQ(std::string(e.what()).find("NotBase64"), std::string::npos) << e.what();
    }
}

TEST_F(PushTargetsTest, LeasesKeepWithinMaxInFlightAcrossPushers) {
    Queue q = queue();
    PushTarget t = sample_target();
    t.rate = 0;
    t.max_in_flight = 3;
    client().push_targets("q").set(t);
    send_many(q, 10);
    // Two pushers of their own Clients: the limit is in Redis, not in either of them.
    Client other(server().url(), with_engine_from_env({}));
    const PushLeases first = client().push_targets("q").lease(10);
    EXPECT_EQ(first.fetch.deliveries.size(), 3U);
    EXPECT_TRUE(first.limited);
    EXPECT_TRUE(first.has_target);
    ASSERT_TRUE(first.fetch.next.has_value());
    // No room until a lease ends: the earliest deadline, the request timeout and the margin on.
    EXPECT_EQ(*first.fetch.next, first.fetch.now + t.request_timeout + kPushLeaseMargin);
    const PushLeases second = other.push_targets("q").lease(10);
    EXPECT_TRUE(second.fetch.deliveries.empty());
    EXPECT_TRUE(second.limited);
    ASSERT_EQ(leases(q).ack(first.fetch.deliveries[0].lease()).status, LeaseStatus::kAcked);
    const PushLeases third = other.push_targets("q").lease(10);
    EXPECT_EQ(third.fetch.deliveries.size(), 1U);
    const auto info = admin(q).get(third.fetch.deliveries[0].id());
    ASSERT_TRUE(info.has_value());
    ASSERT_TRUE(info->lease_deadline.has_value());
    EXPECT_EQ(*info->lease_deadline, third.fetch.now + t.request_timeout + kPushLeaseMargin);
}

TEST_F(PushTargetsTest, LeasesKeepWithinTheRateOnTheRedisClock) {
    Queue q = queue();
    PushTarget t = sample_target();
    t.rate = 2;
    t.max_in_flight = 100;
    client().push_targets("q").set(t);
    send_many(q, 10);
    // The bucket holds a second's worth and starts full: two now, then one every 500 ms.
    const PushLeases first = client().push_targets("q").lease(10);
    EXPECT_EQ(first.fetch.deliveries.size(), 2U);
    EXPECT_TRUE(first.limited);
    ASSERT_TRUE(first.fetch.next.has_value());
    EXPECT_EQ(*first.fetch.next, first.fetch.now + 500ms);
    wait_for_server_time_after(*first.fetch.next);
    const PushLeases second = client().push_targets("q").lease(10);
    EXPECT_GE(second.fetch.deliveries.size(), 1U);
    EXPECT_LE(second.fetch.deliveries.size(), 2U);
    EXPECT_TRUE(second.limited);
}

TEST_F(PushTargetsTest, WithoutATargetNothingIsLeased) {
    Queue q = queue();
    q.send("x");
    const PushLeases got = client().push_targets("q").lease(10);
    EXPECT_FALSE(got.has_target);
    EXPECT_TRUE(got.fetch.deliveries.empty());
    EXPECT_EQ(admin(q).stats().ready, 1U);
}

TEST_F(PushTargetsTest, ARecordedAnswerShowsInGet) {
    PushTargets push = client().push_targets("q");
    push.record(503, "HTTP 503: busy");  // no target yet: nothing written
    EXPECT_TRUE(queue_keys().empty());
    push.set(sample_target());
    push.record(503, "HTTP 503: busy");
    const auto info = push.get();
    ASSERT_TRUE(info.has_value());
    ASSERT_TRUE(info->last.has_value());
    EXPECT_EQ(info->last->status, 503);
    EXPECT_EQ(info->last->error, "HTTP 503: busy");
    EXPECT_GE(info->last->at, info->updated);
    EXPECT_THROW(push.record(1000, ""), InvalidArgument);
}

TEST_F(PushTargetsTest, DeletingTheQueueRemovesItsTargetAndCredentials) {
    Queue q = queue();
    q.send("x");
    client().push_targets("q").set(sample_target());
    admin(q).delete_queue();
    EXPECT_TRUE(queue_keys().empty());
    EXPECT_EQ(server().integer({"EXISTS", "dqs:{q}:push"}), 0);
}

}  // namespace
}  // namespace delayq::test
