// The operators' operations: inspection, dead letters, settings, deletion.
#include <algorithm>

#include "model/driver.hpp"

namespace delayq::model {
namespace {

std::string describe(const DeadLetterSelector& s) {
    if (s.all && s.ids.empty()) return "all";
    std::string out = s.all ? "all and " : "";
    for (std::size_t i = 0; i < s.ids.size(); ++i) out += (i == 0 ? "" : ", ") + show(s.ids[i]);
    return "{" + out + "}";
}

std::string describe(const SettingsUpdate& u) {
    std::string out;
    if (u.max_attempts) out += " max_attempts=" + std::to_string(*u.max_attempts);
    if (u.backoff) {
        out += " backoff={" + show(u.backoff->initial) + ", " + show(u.backoff->max) + ", x" +
               show(u.backoff->multiplier) + ", +-" + show(u.backoff->jitter) + "}";
    }
    if (u.dead_max_count) out += " dead_max_count=" + std::to_string(*u.dead_max_count);
    if (u.dead_max_age) out += " dead_max_age=" + show(*u.dead_max_age);
    return out;
}

std::vector<std::string> dead_ids(const QueueModel& m) {
    std::vector<std::string> out;
    for (const auto& [id, e] : m.messages()) {
        if (e.place == Place::kDead) out.push_back(id);
    }
    return out;
}

}  // namespace

void Driver::get(Target& t) {
    const std::string id = pick_id(rng_, ids(t));
    note(t, "get(" + show(id) + ")");
    check_get(t, id);
}

// Listing arguments the library must refuse, changing nothing.
void Driver::list_limits(Target& t) {
    static const std::vector<std::string> cursors = {"garbage", "c1:",    "c1:12:",  "c1::x",
                                                     "c1:-5:x", "c2:5:x", "c1:1e3:x"};
    PageRequest page;
    if (rng_.chance(0.5)) {
        page.limit = rng_.chance(0.5) ? 0 : kMaxBatch + 1;
    } else {
        page.cursor = rng_.pick(cursors);
    }
    const State state = rng_.chance(0.5) ? State::kReady : State::kDead;
    note(t, "list(limit=" + std::to_string(page.limit) + ", cursor=" + show(page.cursor) + ")");
    const auto actual = call([&] { return t.admin.list(state, page); });
    if (actual) diff_.add("list: expected InvalidArgument for a bad page request");
}

void Driver::requeue(Target& t) {
    const DeadLetterSelector s = selector(rng_, ids(t), dead_ids(t.model));
    note(t, "requeue(" + describe(s) + ")");
    const auto expected = t.model.requeue(s);
    const auto actual = call([&] { return t.admin.requeue(s); });
    if (outcome("requeue", expected, actual,
                [&](const auto& e, const auto& a) { diff_.eq("requeue", e, a); })) {
        tally("requeue -> messages", *actual);
    }
}

void Driver::purge(Target& t) {
    const DeadLetterSelector s = selector(rng_, ids(t), dead_ids(t.model));
    note(t, "purge(" + describe(s) + ")");
    const auto expected = t.model.purge(s);
    const auto actual = call([&] { return t.admin.purge(s); });
    if (outcome("purge", expected, actual,
                [&](const auto& e, const auto& a) { diff_.eq("purge", e, a); })) {
        tally("purge -> messages", *actual);
    }
}

void Driver::update_settings(Target& t) {
    const SettingsUpdate u = settings_update(rng_, known_bugs_);
    note(t, "update_settings(" + describe(u) + ")");
    const auto expected = t.model.update_settings(u);
    const auto actual = call([&] { return t.admin.update_settings(u); });
    outcome("update_settings", expected, actual,
            [&](const auto& e, const auto& a) { compare(diff_, "update_settings", e, a); });
}

void Driver::pause_or_resume(Target& t) {
    // Mostly the other way round, sometimes the same again.
    const bool pause = t.model.settings().paused != rng_.chance(0.8);
    note(t, pause ? "pause()" : "resume()");
    t.model.set_paused(pause);
    if (pause) {
        t.admin.pause();
    } else {
        t.admin.resume();
    }
}

void Driver::delete_queue(Target& t) {
    const bool force = rng_.chance(0.4);
    note(t, force ? "delete_queue(force)" : "delete_queue()");
    // The sequence counter goes with the queue and starts again from the clock, which in this
    // test may be behind it (many calls share a microsecond here, never in real life); past
    // it, tokens of leases from before the delete are not handed out again (see the report).
    const test::RawReply seq =
        queue_command(t.model.name(), {"HGET", test::queue_key(t.model.name(), "settings"), "seq"});
    const Totals before = t.model.stats().totals;
    const Expect<DeleteResult> expected = t.model.delete_queue(force);
    const auto actual = call([&] { return t.admin.delete_queue(force); });
    outcome("delete_queue", expected, actual,
            [&](const auto& e, const auto& a) { compare(diff_, "delete_queue", e, a); });
    if (actual && actual->status == DeleteStatus::kDeleted) {
        Totals& d = deleted_totals_;
        d.sent += before.sent;
        d.delivered += before.delivered;
        d.acked += before.acked;
        d.retried += before.retried;
        d.dead_lettered += before.dead_lettered;
        d.expired += before.expired;
        d.cancelled += before.cancelled;
        d.released += before.released;
        d.requeued += before.requeued;
        d.purged += before.purged;
        d.dead_trimmed += before.dead_trimmed;
        tally("delete_queue -> deleted");
    }
    if (actual && actual->status == DeleteStatus::kDeleted &&
        seq.kind == test::RawReply::Kind::kString) {
        const std::int64_t counter = std::stoll(seq.str);
        if (counter >= clock_.now_us()) {
            clock_.advance(counter - clock_.now_us() + 1);
            for (auto& target : targets_) target->model.set_now_us(clock_.now_us());
        }
    }
}

void Driver::server_view(Target& t) {
    note(t, "client.server_time()");
    diff_.eq("server_time", show(TimePoint(Duration(clock_.now_ms()))),
             show(client_->server_time()));
}

}  // namespace delayq::model
