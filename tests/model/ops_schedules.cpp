// Recurring schedules as their owners and a scheduler drive them: upsert and add, pause and
// resume, remove, trigger, and a scheduler's passes with the clock standing still.
#include <chrono>
#include <map>

#include "model/driver.hpp"
#include "model/units.hpp"
#include "support/await.hpp"

namespace delayq::model {
namespace {

const std::vector<std::string>& schedule_names() {
    static const std::vector<std::string> names = {"tick", "report:eu-1", "n"};
    return names;
}

// `every` specs, and cron specs the model follows by arithmetic (cron_cases): 7 s apart at
// least, so that a clock moved by weeks is walked exactly (the scheduler walks at most
// kMissedScanLimit occurrences).
ScheduleSpec random_spec(Rng& rng, std::int64_t now_ms) {
    ScheduleSpec s;
    if (rng.chance(0.3)) {
        const CronCase& c = rng.pick(cron_cases());
        s.cron = c.cron;
        s.tz = c.tz;
        s.payload = "occurrence of " + c.cron + " in " + c.tz;
    } else {
        const std::vector<std::int64_t> everies = {7'000, 60'000, 3'600'000};
        s.every = Duration(rng.pick(everies));
        s.payload = "occurrence of " + std::to_string(s.every.count());
    }
    s.max_attempts = static_cast<int>(rng.between(0, 3));
    if (rng.chance(0.3)) s.expire_after = Duration(rng.between(1'000, 20'000));
    if (rng.chance(0.5)) s.start = TimePoint(Duration(now_ms + rng.between(-200'000, 200'000)));
    if (rng.chance(0.2)) {
        const std::int64_t from = s.start ? ms_of(*s.start) : now_ms;
        s.end = TimePoint(Duration(from + rng.between(0, 600'000)));
    }
    if (rng.chance(0.2)) s.max_runs = static_cast<std::uint64_t>(rng.between(1, 5));
    s.overlap = rng.chance(0.5) ? Overlap::kAllow : Overlap::kSkip;
    const std::int64_t c = rng.between(0, 9);
    s.catch_up = c < 4 ? CatchUp::kNone : c < 8 ? CatchUp::kOne : CatchUp::kAll;
    return s;
}

std::string describe_spec(const ScheduleSpec& s) {
    return (s.cron.empty() ? "every " + show(s.every) : "cron " + show(s.cron) + " in " + s.tz) +
           (s.start ? " start " + show(*s.start) : "") + (s.end ? " end " + show(*s.end) : "") +
           " runs<=" + std::to_string(s.max_runs) + " " + std::string(to_string(s.overlap)) +
           " catch-up " + std::string(to_string(s.catch_up)) + " expire " + show(s.expire_after);
}

void compare_put(Diff& d, std::string_view what, const std::optional<PutResult>& e,
                 const std::optional<PutResult>& a) {
    d.eq(what, "found", e.has_value(), a.has_value());
    if (!e || !a) return;
    d.eq(what, "status", static_cast<int>(e->status), static_cast<int>(a->status));
    d.eq(what, "next", e->next, a->next);
}

}  // namespace

void compare(Diff& d, std::string_view what, const std::optional<ScheduleInfo>& e,
             const std::optional<ScheduleInfo>& a) {
    d.eq(what, "exists", e.has_value(), a.has_value());
    if (!e || !a) return;
    d.eq(what, "name", e->name, a->name);
    if (!(e->spec == a->spec)) d.add(std::string(what) + ".spec differs");
    d.eq(what, "paused", e->paused, a->paused);
    d.eq(what, "anchor", e->anchor, a->anchor);
    d.eq(what, "created", e->created, a->created);
    d.eq(what, "updated", e->updated, a->updated);
    d.eq(what, "next", e->next, a->next);
    d.eq(what, "last_fired", e->last_fired, a->last_fired);
    d.eq(what, "last_id", e->last_id, a->last_id);
    d.eq(what, "last_outcome", std::string(to_string(e->last_outcome)),
         std::string(to_string(a->last_outcome)));
    d.eq(what, "last_dead_reason", e->last_dead_reason, a->last_dead_reason);
    d.eq(what, "runs", e->runs, a->runs);
    d.eq(what, "missed", e->missed, a->missed);
    d.eq(what, "skipped", e->skipped, a->skipped);
}

void Driver::schedule_put(Target& t) {
    const std::string name = rng_.pick(schedule_names());
    ScheduleSpec spec = random_spec(rng_, clock_.now_ms());
    const auto& stored = t.model.schedules();
    if (stored.contains(name) && rng_.chance(0.3)) spec = stored.at(name).spec;  // the same again
    const bool add = rng_.chance(0.2);
    note(t, std::string(add ? "schedules.add(" : "schedules.upsert(") + name + ", " +
                describe_spec(spec) + ")");
    const auto expected = t.model.schedule_put(add ? PutMode::kAdd : PutMode::kUpsert, name, &spec);
    Schedules schedules = client_->schedules(t.model.name());
    const PutResult actual = add ? schedules.add(name, spec) : schedules.upsert(name, spec);
    compare_put(diff_, "schedules.put", expected, actual);
    tally(std::string("schedules.") + (add ? "add" : "upsert") + " -> " +
          std::to_string(static_cast<int>(actual.status)));
}

void Driver::schedule_pause_or_resume(Target& t) {
    const std::string name = rng_.pick(schedule_names());
    const auto& stored = t.model.schedules();
    const bool pause =
        !stored.contains(name) || !stored.at(name).paused ? rng_.chance(0.8) : rng_.chance(0.2);
    note(t, std::string(pause ? "schedules.pause(" : "schedules.resume(") + name + ")");
    Schedules schedules = client_->schedules(t.model.name());
    if (pause) {
        const bool expected = t.model.schedule_pause(name);
        diff_.eq("schedules.pause", expected, schedules.pause(name));
    } else {
        const bool expected = t.model.schedule_put(PutMode::kResume, name, nullptr).has_value();
        diff_.eq("schedules.resume", expected, schedules.resume(name));
    }
    tally(pause ? "schedules.pause" : "schedules.resume");
}

void Driver::schedule_remove(Target& t) {
    const std::string name = rng_.pick(schedule_names());
    note(t, "schedules.remove(" + name + ")");
    const bool expected = t.model.schedule_remove(name);
    diff_.eq("schedules.remove", expected, client_->schedules(t.model.name()).remove(name));
    tally("schedules.remove");
}

void Driver::schedule_trigger(Target& t) {
    const std::string name = rng_.pick(schedule_names());
    note(t, "schedules.trigger(" + name + ")");
    const auto expected = t.model.schedule_trigger(name);
    const auto actual = client_->schedules(t.model.name()).trigger(name);
    diff_.eq("schedules.trigger.found", expected.has_value(), actual.has_value());
    if (expected && actual) {
        diff_.eq("schedules.trigger.id", expected->id, actual->id);
        diff_.eq("schedules.trigger.instant", expected->instant, actual->instant);
    }
    tally("schedules.trigger");
}

// A scheduler runs until it made the claims the model makes, then stops; with the clock
// standing still, any further pass finds nothing due (else its stats tell). Run only when the
// model claims something: a pass that claims nothing leaves no trace to await.
void Driver::schedule_claim(Target& t) {
    const ClaimCounts expected = t.model.schedule_claims();
    if (expected.claims == 0) return;
    note(t, "a scheduler claims " + std::to_string(expected.claims) + " times");
    Scheduler scheduler(*client_, SchedulerOptions{.queues = {t.model.name()},
                                                   .poll = std::chrono::milliseconds(5)});
    scheduler.start();
    const auto made = [&] {
        const SchedulerStats s = scheduler.stats();
        return s.claims >= expected.claims || s.redis_errors > 0 || s.conflicts > 0;
    };
    try {
        test::await("the scheduler made its claims",
                    [&] { return made() ? std::string() : std::string("not yet"); });
    } catch (const std::runtime_error&) {
        // Compared below: fewer claims than the model's.
    }
    scheduler.stop();
    scheduler.wait();
    const SchedulerStats s = scheduler.stats();
    diff_.eq("scheduler.claims", expected.claims, s.claims);
    diff_.eq("scheduler.fired", expected.fired, s.fired);
    diff_.eq("scheduler.missed", expected.missed, s.missed);
    diff_.eq("scheduler.skipped", expected.skipped, s.skipped);
    diff_.eq("scheduler.conflicts", std::uint64_t{0}, s.conflicts);
    diff_.eq("scheduler.redis_errors", std::uint64_t{0}, s.redis_errors);
    result(std::to_string(s.fired) + " fired, " + std::to_string(s.missed) + " missed, " +
           std::to_string(s.skipped) + " skipped");
    tally("scheduler -> claims", s.claims);
    tally("scheduler -> fired", s.fired);
    tally("scheduler -> missed", s.missed);
    tally("scheduler -> skipped", s.skipped);
}

// Each name by get, and the whole set by list, in pages whose cursors chain (the order is the
// hash scan's: each schedule must come once).
void Driver::check_schedules(Target& t) {
    Schedules schedules = client_->schedules(t.model.name());
    for (const std::string& name : schedule_names()) {
        compare(diff_, t.model.name() + ".schedules.get(" + name + ")", t.model.schedule_get(name),
                schedules.get(name));
    }
    PageRequest page{.limit =
                         rng_.chance(0.7) ? 100 : static_cast<std::size_t>(rng_.between(1, 2))};
    std::map<std::string, ScheduleInfo> listed;
    // A listing that does not end within a page per schedule is a difference.
    bool ended = false;
    for (std::size_t pages = 0; !ended && pages <= schedule_names().size(); ++pages) {
        SchedulePage p = schedules.list(page);
        for (ScheduleInfo& info : p.schedules) {
            const std::string name = info.name;
            if (!listed.emplace(name, std::move(info)).second) {
                diff_.add(t.model.name() + ".schedules.list: " + name + " listed twice");
            }
        }
        ended = p.next_cursor.empty();
        page.cursor = p.next_cursor;
    }
    if (!ended) diff_.add(t.model.name() + ".schedules.list did not end");
    diff_.eq(t.model.name() + ".schedules.list.size", t.model.schedules().size(), listed.size());
    for (const auto& [name, info] : listed) {
        compare(diff_, t.model.name() + ".schedules.list[" + name + "]", t.model.schedule_get(name),
                std::optional<ScheduleInfo>(info));
    }
}

}  // namespace delayq::model
