// Queue::send_async: single sends answered through futures, so that one thread keeps many in
// flight. They share script calls with each other and with blocked Queue::send callers.
#include <atomic>
#include <future>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using SendAsyncTest = RedisTest;

ClientOptions short_timeouts() {
    return ClientOptions{.connect_timeout = 500ms, .command_timeout = 500ms};
}

bool ready(const std::future<SendResult>& f) {
    return f.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

// Runs body(thread_index) on `threads` threads at once.
template <class Body>
void on_threads(int threads, Body body) {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) pool.emplace_back(body, t);
    for (auto& t : pool) t.join();
}

// Waits for every future and checks that their generated ids sort in send order, after
// `previous` (updated): the messages reached Redis in the order they were queued.
void expect_ids_in_send_order(std::vector<std::future<SendResult>>& futures,
                              std::string& previous) {
    for (auto& f : futures) {
        const SendResult r = f.get();
        EXPECT_LT(previous, r.id);
        previous = r.id;
    }
}

// How futures that must all be ready already were answered: a value, or a ConnectionError
// (TimeoutError is one). A future not ready is counted in neither.
struct Answers {
    int sent = 0;
    int failed = 0;
};
Answers answers_of(std::vector<std::future<SendResult>>& futures) {
    Answers a;
    for (auto& f : futures) {
        EXPECT_TRUE(ready(f));
        if (!ready(f)) continue;
        try {
            f.get();
            ++a.sent;
        } catch (const ConnectionError&) {
            ++a.failed;
        }
    }
    return a;
}

TEST_F(SendAsyncTest, OneMessageGetsItsIdAndCanBeFetched) {
    Queue q = queue();
    std::future<SendResult> f = q.send_async("hello", {.max_attempts = 3});
    const SendResult r = f.get();
    EXPECT_FALSE(r.duplicate);
    EXPECT_FALSE(r.id.empty());
    const Delivery d = fetch_one(q);
    EXPECT_EQ(d.id(), r.id);
    EXPECT_EQ(d.payload(), "hello");
    EXPECT_EQ(d.max_attempts(), 3);
}

TEST_F(SendAsyncTest, PayloadAndOptionsAreCopied) {
    Queue q = queue();
    std::future<SendResult> f;
    {
        std::string payload(100, 'p');
        SendOptions options{.delay = 1h, .id = std::string(40, 'i')};
        f = q.send_async(payload, options);
        // The caller's buffers change and die before the send is made.
        payload.assign(100, 'x');
        options.id->assign(40, 'x');
    }
    EXPECT_EQ(f.get().id, std::string(40, 'i'));
    const auto info = admin(q).get(std::string(40, 'i'));
    ASSERT_TRUE(info.has_value());
    EXPECT_EQ(info->payload, std::string(100, 'p'));
}

TEST_F(SendAsyncTest, ManySendsFromSeveralThreadsAllLandInEachThreadsOrder) {
    Queue q = queue();
    constexpr int kThreads = 8;
    constexpr int kPerThread = 500;
    std::vector<std::vector<std::future<SendResult>>> futures(kThreads);
    on_threads(kThreads, [&](int t) {
        for (int i = 0; i < kPerThread; ++i) {
            futures[t].push_back(q.send_async("t" + std::to_string(t) + "-" + std::to_string(i)));
        }
    });
    std::set<std::string> ids;
    for (auto& per_thread : futures) {
        std::string previous;
        for (auto& f : per_thread) {
            const SendResult r = f.get();
            EXPECT_FALSE(r.duplicate);
            ids.insert(r.id);
            // Generated ids sort in send order: one thread's messages went in its order.
            EXPECT_LT(previous, r.id);
            previous = r.id;
        }
    }
    EXPECT_EQ(ids.size(), std::size_t{kThreads * kPerThread});
    EXPECT_EQ(server().zcard(queue_key("q", "pending")), kThreads * kPerThread);
    EXPECT_EQ(admin(q).stats().totals.sent, std::uint64_t{kThreads * kPerThread});
}

TEST_F(SendAsyncTest, SecondSendOfACallerIdIsTheDuplicate) {
    Queue q = queue();
    std::vector<std::future<SendResult>> futures;
    for (int i = 0; i < 50; ++i) futures.push_back(q.send_async("filler"));
    std::future<SendResult> first = q.send_async("first", {.id = "order-1"});
    std::future<SendResult> second = q.send_async("second", {.id = "order-1"});
    for (auto& f : futures) f.get();
    EXPECT_FALSE(first.get().duplicate);
    EXPECT_TRUE(second.get().duplicate);
    EXPECT_EQ(admin(q).get("order-1")->payload, "first");
}

TEST_F(SendAsyncTest, BadInputThrowsAtOnceAndQueuesNothing) {
    Queue q = queue("q", QueueOptions{.max_payload_bytes = 10});
    q.send("warm up");
    const long long keys_before = server().dbsize();
    const auto sent_before = admin(q).stats().totals.sent;
    EXPECT_THROW(q.send_async("x", {.id = "bad{id"}), InvalidArgument);
    EXPECT_THROW(q.send_async("x", {.delay = -1ms}), InvalidArgument);
    EXPECT_THROW(q.send_async("x", {.delay = 1s, .at = TimePoint(Duration(1))}), InvalidArgument);
    EXPECT_THROW(q.send_async("x", {.delay = 10s, .expire_after = 5s}), InvalidArgument);
    EXPECT_THROW(q.send_async("x", {.max_attempts = -1}), InvalidArgument);
    EXPECT_THROW(q.send_async(std::string(11, 'p')), InvalidArgument);
    // A later send goes alone: nothing of the refused ones was queued with it.
    EXPECT_FALSE(q.send_async("ok", {.id = "ok"}).get().duplicate);
    EXPECT_EQ(admin(q).stats().totals.sent, sent_before + 1);
    EXPECT_EQ(server().dbsize(), keys_before);  // "ok" went into existing keys
    EXPECT_EQ(server().zcard(queue_key("q", "pending")), 2);
}

TEST_F(SendAsyncTest, ScriptRefusalAnswersOnlyTheRefusedMessage) {
    Queue q = queue();
    // Only the script can see that this expiry (1 s after the send) precedes the due time.
    const TimePoint late = TimePoint(Duration(server().time_ms())) + std::chrono::hours(1);
    std::string previous;
    for (int round = 0; round < 10; ++round) {
        // The refused message leads, so that it shares a call with good ones and the calls
        // behind it hold only good ones: those must not overtake the first call's good ones,
        // which are sent again one by one.
        std::future<SendResult> bad = q.send_async("bad", {.at = late, .expire_after = 1s});
        std::vector<std::future<SendResult>> good;
        for (int i = 0; i < 150; ++i) good.push_back(q.send_async("good"));
        EXPECT_THROW(bad.get(), InvalidArgument);
        expect_ids_in_send_order(good, previous);
    }
    EXPECT_EQ(server().zcard(queue_key("q", "pending")), 10 * 150);
}

TEST_F(SendAsyncTest, ScriptCacheFlushedBetweenPipelinedCallsLosesNothing) {
    Queue q = queue();
    std::string previous;
    for (int round = 0; round < 20; ++round) {
        std::vector<std::future<SendResult>> futures;
        for (int i = 0; i < 200; ++i) {
            futures.push_back(q.send_async("m"));
            // Calls already pipelined behind a NOSCRIPT answer are read before its EVAL.
            if (i == 100) {
                ASSERT_FALSE(server().command({"SCRIPT", "FLUSH"}).is_error());
            }
        }
        expect_ids_in_send_order(futures, previous);
    }
    EXPECT_EQ(server().zcard(queue_key("q", "pending")), 20 * 200);
}

TEST_F(SendAsyncTest, RedisDownIsAConnectionErrorThroughTheFuture) {
    Client c(server().url(), short_timeouts());
    Queue q = c.queue("q");
    q.send("warm up");
    server().kill();
    std::vector<std::future<SendResult>> futures;
    for (int i = 0; i < 20; ++i) futures.push_back(q.send_async("lost"));
    for (auto& f : futures) EXPECT_THROW(f.get(), ConnectionError);
    server().start();
    // The flusher connects again for the next sends.
    EXPECT_TRUE(eventually([&] {
        try {
            return !q.send_async("after", {.id = "after"}).get().id.empty();
        } catch (const ConnectionError&) {
            return false;
        }
    }));
    EXPECT_EQ(admin(q).get("after")->payload, "after");
}

TEST_F(SendAsyncTest, FullRedisIsAnOutOfMemoryErrorThroughTheFuture) {
    Queue q = queue();
    q.send("kept");
    ASSERT_FALSE(server().command({"CONFIG", "SET", "maxmemory", "1"}).is_error());
    std::vector<std::future<SendResult>> futures;
    for (int i = 0; i < 20; ++i) futures.push_back(q.send_async("refused"));
    for (auto& f : futures) {
        try {
            f.get();
            ADD_FAILURE() << "accepted by a full Redis";
        } catch (const OutOfMemoryError& e) {
            EXPECT_NE(std::string(e.what()).find("send was refused and wrote nothing"),
                      std::string::npos)
                << e.what();
        }
    }
    EXPECT_EQ(server().zcard(queue_key("q", "pending")), 1);
    ASSERT_FALSE(server().command({"CONFIG", "SET", "maxmemory", "0"}).is_error());
    EXPECT_FALSE(q.send_async("after").get().duplicate);
}

TEST_F(SendAsyncTest, DestroyingTheQueueSendsWhatIsQueued) {
    constexpr int kCount = 5000;
    std::vector<std::future<SendResult>> futures;
    {
        Client c(server().url());
        Queue q = c.queue("q");
        for (int i = 0; i < kCount; ++i) futures.push_back(q.send_async("m"));
        // The Client goes first; the Queue keeps what it needs.
    }
    for (auto& f : futures) ASSERT_TRUE(ready(f));
    for (auto& f : futures) EXPECT_FALSE(f.get().id.empty());
    EXPECT_EQ(server().zcard(queue_key("q", "pending")), kCount);
}

// Queues `count` async sends, runs fault(queue), then destroys the Queue and its Client: every
// future must be answered by then.
template <class Fault>
std::vector<std::future<SendResult>> queue_then_close(RedisServer& server, int count, Fault fault) {
    std::vector<std::future<SendResult>> futures;
    Client c(server.url(), short_timeouts());
    Queue q = c.queue("q");
    q.send("warm up");
    for (int i = 0; i < count; ++i) futures.push_back(q.send_async("m"));
    fault(q, futures);
    return futures;
}

TEST_F(SendAsyncTest, DestroyingTheQueueWhileRedisIsDownAnswersEveryFuture) {
    constexpr int kCount = 5000;
    auto futures = queue_then_close(server(), kCount, [&](Queue& q, auto& queued) {
        server().kill();
        for (int i = 0; i < kCount; ++i) queued.push_back(q.send_async("m"));
    });
    const Answers a = answers_of(futures);
    EXPECT_EQ(a.sent + a.failed, 2 * kCount);
    EXPECT_GE(a.failed, kCount);
}

TEST_F(SendAsyncTest, DestroyingTheQueueWhileRedisIsFrozenAnswersEveryFuture) {
    constexpr int kCount = 5000;
    auto futures = queue_then_close(server(), kCount, [&](Queue&, auto&) { server().freeze(); });
    server().thaw();
    const Answers a = answers_of(futures);
    EXPECT_EQ(a.sent + a.failed, kCount);
}

TEST_F(SendAsyncTest, SyncAndAsyncSendsTogetherAllLandInEachThreadsOrder) {
    Queue q = queue();
    constexpr int kThreads = 8;
    constexpr int kPerThread = 300;
    std::vector<std::vector<SendResult>> results(kThreads);
    on_threads(kThreads, [&](int t) {
        std::vector<std::future<SendResult>> pending;
        for (int i = 0; i < kPerThread; ++i) {
            // Even threads only block; odd ones mix: two async sends, then a blocking one,
            // which must not overtake them.
            if (t % 2 == 0 || i % 3 == 2) {
                const SendResult blocking = q.send("sync");
                for (auto& f : pending) results[t].push_back(f.get());
                pending.clear();
                results[t].push_back(blocking);
            } else {
                pending.push_back(q.send_async("async"));
            }
        }
        for (auto& f : pending) results[t].push_back(f.get());
    });
    std::set<std::string> ids;
    for (const auto& per_thread : results) {
        ASSERT_EQ(per_thread.size(), std::size_t{kPerThread});
        for (std::size_t i = 0; i < per_thread.size(); ++i) {
            EXPECT_FALSE(per_thread[i].duplicate);
            ids.insert(per_thread[i].id);
            if (i > 0) {
                EXPECT_LT(per_thread[i - 1].id, per_thread[i].id);
            }
        }
    }
    EXPECT_EQ(ids.size(), std::size_t{kThreads * kPerThread});
    EXPECT_EQ(admin(q).stats().totals.sent, std::uint64_t{kThreads * kPerThread});
}

TEST_F(SendAsyncTest, BlockingSendAfterAsyncOnesDoesNotOvertakeThem) {
    Queue q = queue();
    for (int round = 0; round < 50; ++round) {
        std::vector<std::future<SendResult>> futures;
        for (int i = 0; i < 20; ++i) futures.push_back(q.send_async("a"));
        const SendResult blocking = q.send("b");
        for (auto& f : futures) EXPECT_LT(f.get().id, blocking.id);
    }
}

}  // namespace
}  // namespace delayq::test
