// mode idle: Redis commands per second caused by consumers that have nothing to do.

#include <memory>
#include <thread>

#include "modes.hpp"

namespace delayq::bench {
namespace {

Json measure_idle(Context& ctx, std::size_t consumers, double seconds, bool with_future) {
    Probe& probe = ctx.probe();
    const std::string queue = ctx.fresh_queue("idle");
    Client client(ctx.url(), {.engine = ctx.settings().engine});
    if (with_future) {
        client.queue(queue).send(payload16(), SendOptions{.delay = std::chrono::hours(1)});
    }
    std::vector<std::unique_ptr<Consumer>> all;
    for (std::size_t i = 0; i < consumers; ++i) {
        all.push_back(std::make_unique<Consumer>(
            client.leases(queue), [](const Delivery&) -> Outcome { return Ack{}; },
            ConsumerOptions{}));
        all.back()->start();
    }
    // Past the start-up fetches.
    std::this_thread::sleep_for(std::chrono::duration<double>(ctx.quick() ? 0.2 : 1.0));
    Window window(probe);
    window.start();
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    window.stop();
    for (auto& c : all) c->stop();  // all at once: each takes up to 100 ms to notice
    all.clear();
    probe.drop_queue(queue);

    const double per_s = static_cast<double>(window.commands()) / window.wall_s();
    Json out;
    out["consumers"] = consumers;
    out["seconds"] = window.wall_s();
    out["cmds_per_s"] = per_s;
    out["cmds_per_s_per_consumer"] = per_s / static_cast<double>(consumers);
    out["fetches_per_s_per_consumer"] = static_cast<double>(window.operations().calls) /
                                        window.wall_s() / static_cast<double>(consumers);
    out["redis_cpu_util"] = window.redis_cpu_s() / window.wall_s();
    return out;
}

}  // namespace

void run_idle(Context& ctx) {
    const Settings& s = ctx.settings();
    const double seconds = ctx.quick() ? 0.3 : s.idle_seconds;
    const std::size_t consumers = 10;
    for (bool future : {false, true}) {
        std::vector<Json> runs;
        for (int r = 0; r < s.runs; ++r) {
            note(std::string("idle ") + (future ? "future" : "empty") + " run " +
                 std::to_string(r + 1));
            runs.push_back(measure_idle(ctx, consumers, seconds, future));
        }
        // empty: nothing in the queue; future: one message due in an hour.
        Json line{{"mode", "idle"}, {"variant", future ? "future" : "empty"}};
        line.update(median_of_runs(runs, "cmds_per_s_per_consumer"));
        apply_targets(line, {{"cmds_per_s_per_consumer", false, 1.0}});
        emit(line);
    }
}

}  // namespace delayq::bench
