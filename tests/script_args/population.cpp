#include "population.hpp"

#include <chrono>
#include <stdexcept>

namespace delayq::test::script_args {

using namespace std::chrono_literals;

Population populate(Client& client, const std::string& queue) {
    Population out{.queue = queue,
                   .leases = {},
                   .scheduled_id = "sa-scheduled",
                   .dead_id = "sa-dead",
                   .schedule = "sa-every"};
    Queue q = client.queue(queue);
    QueueAdmin admin = client.admin(queue);
    Leases leases = client.leases(queue);
    admin.update_settings({.max_attempts = 7, .dead_max_count = 5000});

    // Leased first, while nothing else is due.
    for (const char* id : {"sa-flight-1", "sa-flight-2", "sa-dead", "sa-retried"}) {
        q.send("in flight", {.id = std::string(id)});
    }
    const FetchResult fetched = leases.fetch(10, 10min);
    if (fetched.deliveries.size() != 4) throw std::runtime_error("populate: fetch leased too few");
    for (const Delivery& d : fetched.deliveries) {
        const std::string& id = d.lease().id();
        if (id == "sa-dead") {
            leases.reject(d.lease(), {.error = "rejected by populate"});
        } else if (id == "sa-retried") {
            leases.nack(d.lease(), {.delay = 30min, .error = "failed in populate"});
        } else {
            out.leases.push_back(d.lease().to_string());
        }
    }

    q.send("ready", {.id = std::string("sa-ready")});
    q.send("scheduled", {.delay = 1h, .id = out.scheduled_id});
    q.send("cold", {.delay = 3h, .id = std::string("sa-cold")});
    // A run of generated ids far ahead: a block (lib/blocks.lua).
    const std::vector<Message> far(20, Message{"far", {.delay = 2h}});
    q.send_batch(far);

    Schedules schedules = client.schedules(queue);
    ScheduleSpec every;
    every.every = 1h;
    every.payload = "tick";
    schedules.upsert(out.schedule, every);
    schedules.upsert("sa-paused", every);
    schedules.pause("sa-paused");

    PushTarget target;
    target.url = "https://example.com/hook";
    target.headers = {{"X-Token", "secret-value"}};
    target.secrets = {"whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3"};
    PushTargets push = client.push_targets(queue);
    push.set(target);
    push.record(503, "unavailable");

    admin.record_history();
    return out;
}

}  // namespace delayq::test::script_args
