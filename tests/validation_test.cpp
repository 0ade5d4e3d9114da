#include <string>
#include <vector>

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using ValidationTest = RedisTest;

// Using a queue with this name must be refused, whether by queue() or by the first operation.
void expect_bad_queue_name(Client& client, const std::string& name) {
    EXPECT_THROW(
        {
            Queue q = client.queue(name);
            q.send("x");
        },
        InvalidArgument)
        << "queue name: " << name;
}

TEST_F(ValidationTest, BadQueueNamesAreRefused) {
    expect_bad_queue_name(client(), "");
    expect_bad_queue_name(client(), "{q}");
    expect_bad_queue_name(client(), "a{b");
    expect_bad_queue_name(client(), "a}b");
    expect_bad_queue_name(client(), "with space");
    expect_bad_queue_name(client(), "tab\there");
    expect_bad_queue_name(client(), "new\nline");
    expect_bad_queue_name(client(), std::string("nul\0byte", 8));
    expect_bad_queue_name(client(), "del\x7f");
    expect_bad_queue_name(client(), std::string(201, 'q'));
    EXPECT_EQ(server().dbsize(), 0);
}

TEST_F(ValidationTest, GoodQueueNamesWork) {
    const std::vector<std::string> names = {std::string(200, 'q'), "a", "orders.v2:eu-west_1",
                                            "~!@#$%^&*()[]|;'\"<>,?/"};
    for (const auto& name : names) {
        Queue q = client().queue(name);
        const SendResult s = q.send("x");
        EXPECT_TRUE(admin(q).get(s.id)) << name;
        EXPECT_EQ(server().zcard(queue_key(name, "pending")), 1) << name;
    }
}

TEST_F(ValidationTest, BadIdsAreRefusedAndNothingIsWritten) {
    Queue q = queue();
    const std::vector<std::string> bad = {"a{b",
                                          "a}b",
                                          "{x}",
                                          "line\nbreak",
                                          "tab\t",
                                          std::string("nul\0", 4),
                                          std::string(100'000, 'i')};
    for (const auto& id : bad) {
        EXPECT_THROW(q.send("x", {.id = id}), InvalidArgument) << id.size();
        EXPECT_THROW(q.cancel(id), InvalidArgument) << id.size();
        EXPECT_THROW(q.reschedule(id, 1s), InvalidArgument) << id.size();
        EXPECT_THROW(admin(q).get(id), InvalidArgument) << id.size();
    }
    EXPECT_EQ(server().dbsize(), 0);
}

TEST_F(ValidationTest, EmptyIdIsRefusedWhereAnIdIsNeeded) {
    Queue q = queue();
    EXPECT_THROW(q.cancel(""), InvalidArgument);
    EXPECT_THROW(admin(q).get(""), InvalidArgument);
    EXPECT_THROW(q.reschedule("", 1s), InvalidArgument);
}

TEST_F(ValidationTest, ReasonableIdsAreAccepted) {
    Queue q = queue();
    const std::vector<std::string> ids = {"order-1", "user:42/x", "with spaces", "~!@#$%^&*()[]",
                                          std::string(200, 'i')};
    for (const auto& id : ids) {
        const SendResult s = q.send("x", {.id = id});
        EXPECT_EQ(s.id, id);
        EXPECT_FALSE(s.duplicate);
        EXPECT_TRUE(admin(q).get(id));
    }
}

TEST_F(ValidationTest, BadSendOptionsAreRefusedAndNothingIsWritten) {
    Queue q = queue();
    EXPECT_THROW(q.send("x", {.delay = -1ms}), InvalidArgument);
    EXPECT_THROW(q.send("x", {.max_attempts = -1}), InvalidArgument);
    EXPECT_THROW(q.send("x", {.expire_after = -5s}), InvalidArgument);
    // The expiry must come after the due time.
    EXPECT_THROW(q.send("x", {.delay = 10s, .expire_after = 5s}), InvalidArgument);
    EXPECT_THROW(q.send("x", {.delay = 10s, .expire_after = 10s}), InvalidArgument);
    // An absolute due time after the expiry: only the server knows its clock, so this is its
    // check, but the error is the same.
    const TimePoint at(Duration(server().time_ms() + 10'000));
    EXPECT_THROW(q.send("x", {.at = at, .expire_after = 5s}), InvalidArgument);
    // Beyond any representable due time.
    EXPECT_THROW(q.send("x", {.delay = Duration::max()}), InvalidArgument);
    EXPECT_THROW(q.send("x", {.delay = std::chrono::hours(24 * 365 * 20000)}), InvalidArgument);
    EXPECT_EQ(server().dbsize(), 0);
}

TEST_F(ValidationTest, BadQueueOptionsAreRefused) {
    EXPECT_THROW(
        {
            Queue q = client().queue("q", {.max_payload_bytes = std::size_t{1} << 40});
            q.send("x");
        },
        InvalidArgument);
    EXPECT_EQ(server().dbsize(), 0);
}

TEST_F(ValidationTest, BadSettingsAreRefused) {
    QueueAdmin a = client().admin("q");
    EXPECT_THROW(a.update_settings({.max_attempts = 0}), InvalidArgument);
    EXPECT_THROW(a.update_settings({.backoff = Backoff{.initial = 2s, .max = 1s}}),
                 InvalidArgument);
    EXPECT_THROW(a.update_settings({.dead_max_age = -1ms}), InvalidArgument);
    EXPECT_EQ(server().dbsize(), 0);
}

TEST_F(ValidationTest, BadFetchArgumentsAreRefused) {
    Queue q = queue();
    q.send("x");
    EXPECT_THROW(leases(q).fetch(0, 30s), InvalidArgument);
    EXPECT_THROW(leases(q).fetch(1001, 30s), InvalidArgument);
    EXPECT_THROW(leases(q).fetch(10, 0ms), InvalidArgument);
    EXPECT_THROW(leases(q).fetch(10, -1s), InvalidArgument);
    EXPECT_EQ(admin(q).stats().ready, 1u);
    EXPECT_EQ(leases(q).fetch(1000, 30s).deliveries.size(), 1u);
}

TEST_F(ValidationTest, BadDelaysElsewhereAreRefused) {
    Queue q = queue();
    const SendResult s = q.send("x");
    EXPECT_THROW(q.reschedule(s.id, -1s), InvalidArgument);
    const Delivery d = fetch_one(q);
    EXPECT_THROW(leases(q).nack(lease_of(d), Nack{.delay = -1s, .error = ""}), InvalidArgument);
    EXPECT_THROW(leases(q).extend(lease_of(d), 0ms), InvalidArgument);
    EXPECT_EQ(admin(q).get(s.id)->state, State::kInFlight);
    EXPECT_EQ(leases(q).ack(lease_of(d)).status, LeaseStatus::kAcked);
}

TEST_F(ValidationTest, BadPageIsRefused) {
    Queue q = queue();
    EXPECT_THROW(admin(q).list(State::kReady, {.limit = 1001}), InvalidArgument);
    EXPECT_THROW(admin(q).list(State::kReady, {.limit = 0}), InvalidArgument);
    EXPECT_NO_THROW(admin(q).list(State::kReady, {.limit = 1000}));
    // A cursor is whatever a page gave, nothing else: a made-up one is refused before any call.
    for (const char* cursor : {"garbage", "c1:", "c1:12", "c1::m", "c1:x1:m", "c2:1:m"}) {
        EXPECT_THROW(admin(q).list(State::kReady, {.cursor = cursor}), InvalidArgument) << cursor;
    }
}

TEST_F(ValidationTest, BadConsumerOptionsAreRefused) {
    Queue q = queue();
    const auto handler = [](const Delivery&) -> Outcome { return Ack{}; };
    const auto expect_refused = [&](ConsumerOptions options, const char* what) {
        EXPECT_THROW(
            {
                Consumer c(leases(q), handler, options);
                c.start();
                c.stop();
                c.wait();
            },
            InvalidArgument)
            << what;
    };
    expect_refused({.concurrency = 0}, "concurrency 0");
    expect_refused({.max_batch = 0}, "max_batch 0");
    expect_refused({.max_batch = 1001}, "max_batch 1001");
    expect_refused({.visibility_timeout = 0ms}, "visibility 0");
    EXPECT_THROW({ Consumer c(leases(q), Handler{}, ConsumerOptions{}); }, InvalidArgument);
}

TEST_F(ValidationTest, BadUrlsAreRefused) {
    const std::vector<std::string> urls = {"",
                                           "http://127.0.0.1:6379",
                                           "redis://",
                                           "redis://127.0.0.1:notaport",
                                           "redis://127.0.0.1:99999",
                                           "redis://127.0.0.1:1234/notadb",
                                           "unix://"};
    for (const auto& url : urls) {
        EXPECT_THROW(
            {
                Client c(url, {.connect_timeout = 200ms, .command_timeout = 200ms});
                c.ping();
            },
            InvalidArgument)
            << url;
    }
}

TEST_F(ValidationTest, ErrorsShareOneRoot) {
    Queue q = queue();
    try {
        q.send("x", {.id = "{bad}"});
        FAIL() << "no exception";
    } catch (const Error& e) {
        EXPECT_NE(dynamic_cast<const InvalidArgument*>(&e), nullptr);
        EXPECT_STRNE(e.what(), "");
    }
}

}  // namespace
}  // namespace delayq::test
