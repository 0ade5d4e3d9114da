// Scenario S1 (docs/reliability.md): three `delayq schedule run` processes claim one schedule's
// occurrences, every second for a minute; one is killed -9 midway and started again. No leader:
// each occurrence must be sent exactly once, none missed (two schedulers run at every moment).
#include <chrono>
#include <iostream>
#include <set>
#include <thread>

#include "fault/fault_fixture.hpp"

#ifndef DELAYQ_CLI
#error "DELAYQ_CLI must name the delayq binary"
#endif

namespace delayq::fault {
namespace {

constexpr const char* kScheduleQueue = "sched";
constexpr std::int64_t kSecond = 1000;

class ScheduleFault : public FaultTest {
  protected:
    void start_scheduler(const std::string& name) {
        workers_[name] = std::make_unique<WorkerProcess>(
            name,
            std::vector<std::string>{DELAYQ_CLI, "schedule", "run", kScheduleQueue, "--redis",
                                     server().url()},
            dir_ / (name + ".log"));
    }

    // Leases and acks whatever is ready, recording each id delivered.
    void drain(Leases& leases, std::vector<std::string>& delivered) {
        for (const Delivery& d : leases.fetch(100, std::chrono::seconds(30)).deliveries) {
            delivered.push_back(d.id());
            EXPECT_GE(d.delivered_at(), d.due()) << d.id() << " delivered early";
            leases.ack(d.lease());
        }
    }
};

TEST_F(ScheduleFault, SchedulersKilledAndRestartedSendEachOccurrenceOnce) {
    Client client(server().url());
    Schedules schedules = client.schedules(kScheduleQueue);
    ScheduleSpec spec;
    spec.every = std::chrono::seconds(1);
    spec.payload = "tick";
    ASSERT_EQ(schedules.add("tick", spec).status, PutStatus::kCreated);
    const std::int64_t first = schedules.get("tick")->next->time_since_epoch().count();
    for (const char* name : {"s1", "s2", "s3"}) start_scheduler(name);

    Leases leases = client.leases(kScheduleQueue);
    std::vector<std::string> delivered;
    const std::int64_t start = redis_now();
    bool killed = false;
    bool restarted = false;
    while (redis_now() < start + 60 * kSecond) {
        drain(leases, delivered);
        if (!killed && redis_now() >= start + 20 * kSecond) {
            kill_worker("s2");
            killed = true;
        }
        if (!restarted && redis_now() >= start + 30 * kSecond) {
            start_scheduler("s2");
            restarted = true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    for (const char* name : {"s1", "s2", "s3"}) {
        EXPECT_EQ(worker(name).terminate(kDeadline), 0) << worker(name).log();
    }
    // What was due by now is delivered; the one sent ahead may still wait.
    drain(leases, delivered);

    std::set<std::string> distinct(delivered.begin(), delivered.end());
    EXPECT_EQ(distinct.size(), delivered.size()) << "an occurrence was delivered twice";
    std::set<std::int64_t> instants;
    for (const std::string& id : delivered) {
        instants.insert(std::stoll(id.substr(id.rfind(':') + 1)));
    }
    ASSERT_GE(instants.size(), 55U);
    std::int64_t expected = first;
    for (const std::int64_t t : instants) {
        EXPECT_EQ(t, expected) << "an occurrence is missing before this one";
        expected = t + kSecond;
    }
    const auto info = schedules.get("tick");
    std::cout << "scenario S1: " << delivered.size() << " occurrences delivered, "
              << distinct.size() << " distinct, runs " << info->runs << ", missed " << info->missed
              << ", skipped " << info->skipped << '\n';
    EXPECT_EQ(info->missed, 0U);
    EXPECT_EQ(info->skipped, 0U);
    // Sent: those delivered, and at most the one ahead.
    EXPECT_GE(info->runs, delivered.size());
    EXPECT_LE(info->runs, delivered.size() + 1);
}

}  // namespace
}  // namespace delayq::fault
