// Durable sends (QueueOptions::durability): each send call is followed by WAIT on its
// connection, and a shortfall is a DurabilityError carrying the ids of the send's messages, so
// that sending them again is idempotent. Against a real primary and replica; the replica is
// frozen (SIGSTOP) to make it miss its acknowledgement.
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/command_calls.hpp"
#include "support/fixture.hpp"
#include "support/replicated_redis.hpp"

namespace delayq::test {
namespace {

// The WAIT timeout of the sends a frozen replica cannot confirm: the setting under test, not a
// timing threshold (it bounds how long such a test takes).
constexpr Durability kShortWait{.replicas = 1, .timeout = 200ms};
// For sends the replica must confirm: generous, so that a slow machine passes.
constexpr Durability kLongWait{.replicas = 1, .timeout = 10s};

class DurableSendTest : public ::testing::Test {
  protected:
    void SetUp() override {
        redis_ = std::make_unique<ReplicatedRedis>();
        client_.emplace(redis_->primary().url(), with_engine_from_env({}));
    }
    void TearDown() override {
        // A frozen replica would hold up the fixture's shutdown of it.
        if (frozen_) redis_->replica().thaw();
    }

    Queue queue(Durability durability) {
        return client_->queue("q", QueueOptions{.durability = durability});
    }
    QueueAdmin admin() { return client_->admin("q"); }
    void freeze_replica() {
        redis_->replica().freeze();
        frozen_ = true;
    }
    void thaw_replica() {
        redis_->replica().thaw();
        frozen_ = false;
    }
    // Whether `server` holds the record of message `id` (a message due now is kept in the
    // queue's msg hash, under its id).
    static bool holds(const RedisServer& server, const std::string& id) {
        return server.integer({"HEXISTS", queue_key("q", "msg"), id}) == 1;
    }

    std::unique_ptr<ReplicatedRedis> redis_;
    std::optional<Client> client_;
    bool frozen_ = false;
};

// The error a call must have thrown, or a failure of the test.
template <class Call>
DurabilityError durability_error_of(Call call) {
    try {
        call();
    } catch (const DurabilityError& e) {
        return e;
    }
    ADD_FAILURE() << "no DurabilityError";
    return DurabilityError({}, 0, 0, "none");
}

TEST_F(DurableSendTest, AConfirmedSendIsOnTheReplicaWhenItReturns) {
    Queue q = queue(kLongWait);
    const SendResult sent = q.send("hello", {.id = "a"});
    EXPECT_FALSE(sent.duplicate);
    // Read at once, without waiting: WAIT said the replica has it.
    EXPECT_TRUE(holds(redis_->primary(), "a"));
    EXPECT_TRUE(holds(redis_->replica(), "a"));

    const std::vector<Message> batch{{"b1", {}}, {"b2", {.id = "b"}}};
    const std::vector<SendResult> results = q.send_batch(batch);
    ASSERT_EQ(results.size(), 2U);
    for (const SendResult& r : results) EXPECT_TRUE(holds(redis_->replica(), r.id)) << r.id;

    const SendResult async = q.send_async("c", {.id = "c"}).get();
    EXPECT_EQ(async.id, "c");
    EXPECT_TRUE(holds(redis_->replica(), "c"));
}

TEST_F(DurableSendTest, AnUnconfirmedSendReportsItsGeneratedIdAndARetryIsADuplicate) {
    Queue q = queue(kShortWait);
    freeze_replica();
    const DurabilityError e = durability_error_of([&] { q.send("x"); });
    ASSERT_EQ(e.ids().size(), 1U);
    const std::string id = e.ids().front();
    EXPECT_FALSE(id.empty());  // made for the message, which named none
    EXPECT_EQ(e.asked(), 1);
    EXPECT_EQ(e.confirmed(), 0);
    EXPECT_NE(std::string(e.what()).find(id), std::string::npos) << e.what();
    // Stored on the primary all the same.
    EXPECT_TRUE(admin().get(id));

    thaw_replica();
    const SendResult again = queue(kLongWait).send("x", {.id = id});
    EXPECT_TRUE(again.duplicate);
    EXPECT_EQ(admin().stats().scheduled + admin().stats().ready, 1U);
    EXPECT_TRUE(holds(redis_->replica(), id));
}

TEST_F(DurableSendTest, AMessageSentWithoutAnIdGetsOneThatIsNotTheGeneratedForm) {
    // A generated id (a sequence key) could not be sent again as a caller's id.
    const SendResult r = queue(kLongWait).send("x");
    EXPECT_EQ(r.id.size(), 32U);
    EXPECT_NO_THROW(validate_message("x", {.id = r.id}));
    EXPECT_TRUE(holds(redis_->replica(), r.id));
}

TEST_F(DurableSendTest, ADuplicateStillWaitsForTheReplicas) {
    Queue q = queue(kShortWait);
    EXPECT_FALSE(queue(kLongWait).send("x", {.id = "a"}).duplicate);
    freeze_replica();
    const DurabilityError e = durability_error_of([&] { q.send("x", {.id = "a"}); });
    EXPECT_EQ(e.ids(), std::vector<std::string>{"a"});
}

TEST_F(DurableSendTest, SendAsyncAnswersEachFutureAndCallbackWithItsOwnId) {
    Queue q = queue(kShortWait);
    freeze_replica();
    std::vector<std::future<SendResult>> futures;
    futures.push_back(q.send_async("1", {.id = "one"}));
    futures.push_back(q.send_async("2"));
    futures.push_back(q.send_async("3", {.id = "three"}));
    std::promise<std::exception_ptr> called;
    q.send_async("4", {.id = "four"},
                 [&](std::exception_ptr error, const SendResult&) { called.set_value(error); });

    std::vector<std::string> ids;
    for (auto& f : futures) {
        const DurabilityError e = durability_error_of([&] { f.get(); });
        ASSERT_EQ(e.ids().size(), 1U);
        EXPECT_EQ(e.confirmed(), 0);
        ids.push_back(e.ids().front());
    }
    EXPECT_EQ(ids[0], "one");
    EXPECT_FALSE(ids[1].empty());
    EXPECT_NE(ids[1], ids[0]);
    EXPECT_EQ(ids[2], "three");
    const std::exception_ptr error = called.get_future().get();
    const DurabilityError e = durability_error_of([&] { std::rethrow_exception(error); });
    EXPECT_EQ(e.ids(), std::vector<std::string>{"four"});
    for (const std::string& id : ids) EXPECT_TRUE(admin().get(id)) << id;

    thaw_replica();
    Queue retry = queue(kLongWait);
    for (const std::string& id : ids) {
        EXPECT_TRUE(retry.send_async("again", {.id = id}).get().duplicate) << id;
    }
}

TEST_F(DurableSendTest, SendBatchReportsEveryIdInOrder) {
    Queue q = queue(kShortWait);
    freeze_replica();
    const std::vector<Message> batch{{"1", {.id = "first"}}, {"2", {}}, {"3", {.id = "third"}}};
    const DurabilityError e = durability_error_of([&] { q.send_batch(batch); });
    ASSERT_EQ(e.ids().size(), 3U);
    EXPECT_EQ(e.ids()[0], "first");
    EXPECT_TRUE(admin().get(e.ids()[1]));
    EXPECT_EQ(e.ids()[2], "third");

    thaw_replica();
    std::vector<Message> again = batch;
    again[1].options.id = e.ids()[1];
    for (const SendResult& r : queue(kLongWait).send_batch(again)) EXPECT_TRUE(r.duplicate) << r.id;
    EXPECT_EQ(admin().stats().scheduled + admin().stats().ready, 3U);
}

TEST_F(DurableSendTest, BadDurabilityIsRefusedAndWritesNothing) {
    const long long waits = command_calls(redis_->primary(), "wait");  // the fixture's
    for (const Durability bad :
         {Durability{.replicas = 1, .timeout = 0ms}, Durability{.replicas = -1, .timeout = 1s},
          Durability{.replicas = kMaxWaitReplicas + 1, .timeout = 1s},
          Durability{.replicas = 1, .timeout = -1ms},
          Durability{.replicas = 1, .timeout = kMaxWaitTimeout + 1ms}}) {
        EXPECT_THROW(queue(bad), InvalidArgument) << bad.replicas << " " << bad.timeout.count();
        EXPECT_THROW(validate_durability(bad), InvalidArgument);
    }
    try {
        queue({.replicas = 2, .timeout = 0ms});
        ADD_FAILURE() << "accepted";
    } catch (const InvalidArgument& e) {
        EXPECT_NE(std::string(e.what()).find("WAIT 0"), std::string::npos) << e.what();
    }
    EXPECT_EQ(redis_->primary().dbsize(), 0);
    EXPECT_EQ(command_calls(redis_->primary(), "wait"), waits);
}

// Without replicas: a plain queue sends no WAIT on any path, and a durable one reports what
// Redis confirmed, none.
using DurableWithoutReplicaTest = RedisTest;

TEST_F(DurableWithoutReplicaTest, APlainQueueSendsNoWaitAndADurableOneFailsWithin) {
    Queue plain = queue();
    EXPECT_FALSE(plain.send("1").id.empty());
    EXPECT_EQ(plain.send_batch(std::vector<Message>{{"2", {}}, {"3", {}}}).size(), 2U);
    EXPECT_FALSE(plain.send_async("4").get().id.empty());
    EXPECT_EQ(command_calls(server(), "wait"), 0);

    Queue durable = queue("q", {.durability = kShortWait});
    const DurabilityError e = durability_error_of([&] { durable.send("5", {.id = "five"}); });
    EXPECT_EQ(e.ids(), std::vector<std::string>{"five"});
    EXPECT_EQ(e.confirmed(), 0);
    EXPECT_EQ(command_calls(server(), "wait"), 1);
    // The plain handle of the same queue keeps its own line, and still no WAIT.
    EXPECT_FALSE(plain.send("6").duplicate);
    EXPECT_EQ(command_calls(server(), "wait"), 1);
}

}  // namespace
}  // namespace delayq::test
