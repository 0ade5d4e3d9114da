// Push delivery under faults (docs/reliability.md): a `delayq push run` killed -9 with requests
// in flight, and redis-server killed -9 mid-run. Judged by the receiver: every message reaches a
// 2xx answer at least once, none before its due time, and the queue ends empty with no dead
// letters.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>

#include "delayq/push.hpp"
#include "fault/fault_fixture.hpp"
#include "support/push_receiver.hpp"

#ifndef DELAYQ_CLI
#error "DELAYQ_CLI must name the delayq binary"
#endif

namespace delayq::fault {
namespace {

using test::PushReceiver;
using test::ReceivedRequest;
using test::ReceiverAnswer;

constexpr const char* kPushQueue = "hooks";

class PushFault : public FaultTest {
  protected:
    void start_pusher(const std::string& name) {
        workers_[name] = std::make_unique<WorkerProcess>(
            name,
            std::vector<std::string>{DELAYQ_CLI, "push", "run", kPushQueue, "--redis",
                                     server().url()},
            dir_ / (name + ".log"));
    }

    void set_target(const PushReceiver& receiver) {
        PushTarget target;
        target.url = receiver.url();
        target.request_timeout = std::chrono::seconds(1);  // leases of 6 s
        Client(server().url()).push_targets(kPushQueue).set(target);
        Client(server().url())
            .admin(kPushQueue)
            .update_settings(
                SettingsUpdate{.backoff = Backoff{.initial = std::chrono::milliseconds(10),
                                                  .max = std::chrono::milliseconds(10),
                                                  .jitter = 0}});
    }

    void send(int count, std::chrono::milliseconds spread) {
        Queue q = Client(server().url()).queue(kPushQueue);
        for (int i = 0; i < count; ++i) {
            q.send("m-" + std::to_string(i),
                   SendOptions{.delay = spread * i / count, .id = "m-" + std::to_string(i)});
        }
    }

    // Each message answered 2xx at least once (the receiver answers 200 to all), none early.
    static void expect_every_message_delivered(const PushReceiver& receiver, int count) {
        std::map<std::string, int> by_body;
        for (const ReceivedRequest& r : receiver.requests()) {
            ++by_body[r.body];
            const auto at = std::chrono::duration_cast<std::chrono::milliseconds>(
                                r.received_at.time_since_epoch())
                                .count();
            EXPECT_GE(at, std::stoll(r.header("Delayq-Due"))) << r.body << " arrived early";
        }
        EXPECT_EQ(by_body.size(), static_cast<std::size_t>(count));
        for (int i = 0; i < count; ++i) {
            EXPECT_GE(by_body["m-" + std::to_string(i)], 1) << "m-" << i << " never arrived";
        }
    }

    // Polls until the queue is empty (every message acked); false at the deadline.
    bool await_queue_empty() {
        const auto end = std::chrono::steady_clock::now() + kDeadline;
        for (;;) {
            try {
                const QueueStats s = admin(kPushQueue).stats();
                if (s.scheduled == 0 && s.ready == 0 && s.in_flight == 0 && s.dead == 0) {
                    return true;
                }
            } catch (const Error&) {
                // Redis is coming back.
            }
            if (std::chrono::steady_clock::now() >= end) return false;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
};

TEST_F(PushFault, APusherKilledMidRequestLosesNothing) {
    // Slow answers, so that the kill finds requests in flight.
    PushReceiver receiver([](const ReceivedRequest&, std::size_t) {
        return ReceiverAnswer{.delay = std::chrono::milliseconds(300)};
    });
    set_target(receiver);
    constexpr int kCount = 60;
    send(kCount, std::chrono::milliseconds(2000));
    start_pusher("p1");
    ASSERT_TRUE(receiver.wait_for([](const auto& r) { return r.size() >= 10; }, kDeadline))
        << worker("p1").log();
    kill_worker("p1");
    start_pusher("p2");
    // The killed pusher's requests come back when their leases end (6 s).
    ASSERT_TRUE(await_queue_empty()) << worker("p2").log();
    EXPECT_EQ(worker("p2").terminate(kDeadline), 0) << worker("p2").log();
    expect_every_message_delivered(receiver, kCount);
}

TEST_F(PushFault, RedisKilledMidRunLosesNothing) {
    PushReceiver receiver;
    set_target(receiver);
    constexpr int kCount = 100;
    send(kCount, std::chrono::milliseconds(3000));
    start_pusher("p1");
    ASSERT_TRUE(receiver.wait_for([](const auto& r) { return r.size() >= 20; }, kDeadline))
        << worker("p1").log();
    const std::int64_t killed = redis_now();
    server().kill();
    server().start();
    record_fault("redis_kill", "", killed, redis_now());
    ASSERT_TRUE(await_queue_empty()) << worker("p1").log();
    EXPECT_EQ(worker("p1").terminate(kDeadline), 0) << worker("p1").log();
    expect_every_message_delivered(receiver, kCount);
}

}  // namespace
}  // namespace delayq::fault
