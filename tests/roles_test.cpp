// The public API by role: what Queue, QueueAdmin and Leases add over the calls each test file
// covers in depth (cursors, the lease as a string, last_error, the send callback, empty ids).
#include <gtest/gtest.h>

#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using RolesTest = RedisTest;

std::vector<std::string> ids_of(const std::vector<MessageInfo>& messages) {
    std::vector<std::string> out;
    for (const auto& m : messages) out.push_back(m.id);
    return out;
}

TEST_F(RolesTest, CursorSurvivesTheMessageItPointsAtLeaving) {
    Queue q = queue();
    // One batch, one due time: the messages share a score, so the cursor's place among them is
    // found by the id order alone once its own message is gone.
    const std::vector<SendResult> sent =
        q.send_batch(std::vector<Message>(30, {"m", {.delay = 1h}}));
    const MessagePage first = admin(q).list(State::kScheduled, {.limit = 10});
    ASSERT_EQ(first.messages.size(), 10u);
    ASSERT_FALSE(first.next_cursor.empty());
    EXPECT_EQ(first.messages.back().id, sent[9].id);
    // The last message of the page and the one after it leave before the next page is read.
    EXPECT_EQ(q.cancel(sent[9].id), CancelResult::kCancelled);
    EXPECT_EQ(q.cancel(sent[10].id), CancelResult::kCancelled);
    const MessagePage second =
        admin(q).list(State::kScheduled, {.cursor = first.next_cursor, .limit = 100});
    ASSERT_EQ(second.messages.size(), 19u);
    EXPECT_EQ(second.messages.front().id, sent[11].id);
    EXPECT_EQ(second.messages.back().id, sent[29].id);
    EXPECT_TRUE(second.next_cursor.empty());
}

TEST_F(RolesTest, CursorOfARescheduledMessageKeepsItsPlace) {
    Queue q = queue();
    std::vector<std::string> sent;
    for (int i = 1; i <= 6; ++i) sent.push_back(q.send("m", {.delay = i * 1min}).id);
    const MessagePage first = admin(q).list(State::kScheduled, {.limit = 3});
    ASSERT_EQ(ids_of(first.messages), (std::vector<std::string>(sent.begin(), sent.begin() + 3)));
    // The page's last message moves behind everything: the next page still starts after where
    // it was, and meets it again at its new place.
    ASSERT_EQ(q.reschedule(sent[2], 1h).status, RescheduleStatus::kRescheduled);
    const MessagePage second = admin(q).list(State::kScheduled, {.cursor = first.next_cursor});
    EXPECT_EQ(ids_of(second.messages),
              (std::vector<std::string>{sent[3], sent[4], sent[5], sent[2]}));
}

TEST_F(RolesTest, ReadyPagesStopWhereScheduledBegins) {
    Queue q = queue();
    const auto ready = q.send_batch(std::vector<Message>(5, {"r", {}}));
    q.send("later", {.delay = 1h});
    const MessagePage first = admin(q).list(State::kReady, {.limit = 3});
    ASSERT_EQ(first.messages.size(), 3u);
    const MessagePage second = admin(q).list(State::kReady, {.cursor = first.next_cursor});
    ASSERT_EQ(second.messages.size(), 2u);
    EXPECT_EQ(second.messages.back().id, ready[4].id);
    EXPECT_TRUE(second.next_cursor.empty());
}

TEST_F(RolesTest, LeaseRoundTripsThroughItsString) {
    Queue q = queue();
    const auto [s, d] = send_and_fetch(q, "x", {.id = "order 42: close"});
    const std::string text = d.lease().to_string();
    const std::optional<Lease> back = Lease::parse(text);
    ASSERT_TRUE(back);
    EXPECT_EQ(*back, d.lease());
    EXPECT_EQ(back->id(), "order 42: close");
    // A lease rebuilt from its string is as good as the delivery's own.
    EXPECT_EQ(leases(q).ack(*back).status, LeaseStatus::kAcked);
    EXPECT_EQ(leases(q).ack(d.lease()).status, LeaseStatus::kLost);
    EXPECT_EQ(Lease("m", 0xabc).to_string(), "00000000000abcm");
    EXPECT_EQ(Lease("m", (std::uint64_t{1} << 56U) - 1).to_string(), "ffffffffffffffm");
    EXPECT_EQ(Lease("m", std::uint64_t{1} << 56U).to_string(), "") << "past 14 digits: no lease";
    for (const char* bad : {"", "abc", "00000000000000x", "0000000000000zid", "00000000000000id",
                            "0000000000000aid{x}",
                            "0000000000000A"
                            "id"}) {
        EXPECT_FALSE(Lease::parse(bad)) << bad;
    }
}

TEST_F(RolesTest, RedeliveryCarriesTheLastError) {
    Queue q = queue();
    const auto [s, d] = send_and_fetch(q, "x");
    EXPECT_EQ(d.last_error(), "");
    ASSERT_EQ(leases(q).nack(d.lease(), Nack{.delay = 0ms, .error = "db down"}).status,
              LeaseStatus::kRetrying);
    const Delivery again = fetch_one(q);
    EXPECT_EQ(again.attempt(), 2);
    EXPECT_EQ(again.last_error(), "db down");
    // A lapsed lease is a failed attempt too, and says so.
    const Delivery lapsing = again;
    EXPECT_EQ(leases(q).extend(lapsing.lease(), 1ms).status, LeaseStatus::kExtended);
    wait_for_server_time_after(admin(q).stats().now + 2ms);
    const Delivery third = fetch_one(q);
    EXPECT_EQ(third.attempt(), 3);
    EXPECT_NE(third.last_error().find("visibility timeout"), std::string::npos)
        << third.last_error();
}

TEST_F(RolesTest, NackWithoutDelayBacksOffByTheAttemptsMade) {
    Queue q = queue();
    const auto [s, d] = send_and_fetch(q, "x");
    const std::int64_t before = server().time_ms();
    const LeaseResult first = leases(q).nack(d.lease(), Nack{.error = "e"});
    const std::int64_t after = server().time_ms();
    ASSERT_EQ(first.status, LeaseStatus::kRetrying);
    // Backoff{}: 1 s for the first attempt, +-20 %.
    EXPECT_GE(ms(first.at), before + 800);
    EXPECT_LE(ms(first.at), after + 1200);
}

TEST_F(RolesTest, SendAsyncCallbackAnswersEveryMessage) {
    Queue q = queue();
    std::mutex mutex;
    std::condition_variable cv;
    std::vector<SendResult> results;
    std::vector<std::exception_ptr> errors;
    constexpr std::size_t kCount = 200;
    for (std::size_t i = 0; i < kCount; ++i) {
        q.send_async("m", {.id = "id-" + std::to_string(i % 150)},
                     [&](std::exception_ptr error, SendResult result) {
                         std::lock_guard lock(mutex);
                         if (error) {
                             errors.push_back(error);
                         } else {
                             results.push_back(std::move(result));
                         }
                         cv.notify_all();
                     });
    }
    std::unique_lock lock(mutex);
    ASSERT_TRUE(cv.wait_for(lock, kEventDeadline,
                            [&] { return results.size() + errors.size() == kCount; }));
    EXPECT_TRUE(errors.empty());
    std::size_t duplicates = 0;
    for (const auto& r : results) duplicates += r.duplicate ? 1 : 0;
    EXPECT_EQ(duplicates, 50u);
    EXPECT_EQ(admin(q).stats().ready, 150u);
}

TEST_F(RolesTest, SendAsyncCallbackGetsTheErrorAndACallbackThatThrowsIsContained) {
    Queue q = queue();
    std::mutex mutex;
    std::condition_variable cv;
    int answered = 0;
    std::exception_ptr seen;
    // Past 9999 only by the Redis clock: refused by the script, so through the callback.
    q.send_async("x", {.delay = Duration(253'402'300'799'999 - 1000)},
                 [&](std::exception_ptr error, SendResult) {
                     std::lock_guard lock(mutex);
                     seen = error;
                     ++answered;
                     cv.notify_all();
                     throw std::runtime_error("a callback that throws");
                 });
    q.send_async("y", {}, [&](std::exception_ptr error, SendResult) {
        std::lock_guard lock(mutex);
        ++answered;
        if (error) seen = error;
        cv.notify_all();
    });
    std::unique_lock lock(mutex);
    ASSERT_TRUE(cv.wait_for(lock, kEventDeadline, [&] { return answered == 2; }));
    ASSERT_TRUE(seen);
    EXPECT_THROW(std::rethrow_exception(seen), InvalidArgument);
    EXPECT_EQ(admin(q).stats().ready, 1u);
    EXPECT_THROW(q.send_async("z", {}, SendCallback{}), InvalidArgument);
}

TEST_F(RolesTest, AnEmptyIdIsRefusedNotGenerated) {
    Queue q = queue();
    EXPECT_THROW(q.send("x", {.id = ""}), InvalidArgument);
    EXPECT_THROW(q.send_async("x", {.id = ""}), InvalidArgument);
    EXPECT_THROW(q.send_batch(std::vector<Message>{{"a", {}}, {"b", {.id = ""}}}), InvalidArgument);
    EXPECT_EQ(queue_keys(), std::vector<std::string>{});
    // Absent, it is generated.
    EXPECT_EQ(q.send("x").id.size(), 14u);
}

TEST_F(RolesTest, DeadLetterSelectorTakesIdsOrAllAndCountsEachMessageOnce) {
    Queue q = queue();
    for (const char* id : {"r1", "r2"}) {
        q.send("x", {.id = id});
        leases(q).reject(fetch_one(q).lease(), Reject{.error = "no"});
    }
    EXPECT_THROW(admin(q).requeue({.ids = {"r1"}, .all = true}), InvalidArgument);
    EXPECT_THROW(admin(q).purge({.ids = {""}}), InvalidArgument);
    EXPECT_EQ(admin(q).requeue({.ids = {"r1", "r1", "nope"}}), 1u);
    EXPECT_EQ(admin(q).purge({.all = true}), 1u);
    EXPECT_EQ(admin(q).stats().dead, 0u);
    EXPECT_EQ(admin(q).stats().ready, 1u);
}

}  // namespace
}  // namespace delayq::test
