#pragma once

// Recurring schedules: a cron expression or an interval, in a time zone, that sends one ordinary
// delayed message per occurrence into its queue. No leader: any number of Schedulers (and
// `delayq serve`, `delayq schedule run`) claim occurrences with one atomic call each, so each
// occurrence is sent exactly once (docs/design.md, Schedules).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "delayq/limits.hpp"
#include "delayq/types.hpp"

namespace delayq {

namespace detail {
class QueueCore;
}

// While the previous occurrence's message is still pending or in flight, the next one is sent
// anyway (kAllow) or skipped (kSkip, counted in ScheduleInfo::skipped).
enum class Overlap { kAllow, kSkip };

// What a claim does with occurrences missed while no scheduler ran (more than
// kScheduleGrace late): nothing (kNone), the newest one (kOne), or each one, the newest
// kMaxCatchUp of them (kAll). Each is sent due at its own instant, so at once.
enum class CatchUp { kNone, kOne, kAll };

std::string_view to_string(Overlap overlap);
std::string_view to_string(CatchUp catch_up);
// Parse "allow"/"skip" and "none"/"one"/"all"; nullopt otherwise.
std::optional<Overlap> parse_overlap(std::string_view text);
std::optional<CatchUp> parse_catch_up(std::string_view text);

// A schedule as its owner declares it. Exactly one of `cron` and `every`.
struct ScheduleSpec {
    // Five fields (minute hour day-of-month month day-of-week), or six with seconds first;
    // ranges, steps, lists, names of months and days (JAN, MON), `?` for a day field, and the
    // names @yearly @annually @monthly @weekly @daily @midnight @hourly. Day of month and day of
    // week both restricted: either matches, as cron defines it. Evaluated in `tz`.
    std::string cron{};
    // An interval of at least 1 s, anchored to `start`, else to the time of the first upsert
    // (which identical upserts keep): occurrences are anchor + k * every, the first one after
    // the anchor when it is the upsert's time, the anchor itself when it is `start`.
    Duration every{0};
    // An IANA zone ("Europe/Berlin") from the system's tzdata, for cron; `every` counts elapsed
    // time and takes only "UTC".
    std::string tz = "UTC";

    // The message of each occurrence. Its id is schedule_message_id(name, instant) and it falls
    // due at the occurrence's instant.
    std::string payload{};
    int max_attempts = 0;  // 0: the queue's setting
    // 0: never. Else an occurrence not delivered by instant + expire_after is dead-lettered as
    // expired instead of running late.
    Duration expire_after{0};

    // Occurrences before start or after end are not sent; max_runs > 0 ends the schedule after
    // that many.
    std::optional<TimePoint> start{};
    std::optional<TimePoint> end{};
    std::uint64_t max_runs = 0;
    Overlap overlap = Overlap::kAllow;
    CatchUp catch_up = CatchUp::kOne;

    bool operator==(const ScheduleSpec&) const = default;
};

// Throws InvalidArgument naming the field and the reason: a cron field out of range, an
// unknown zone, an interval under 1 s, an end before the start, a payload over `max_payload`, a
// max_attempts or expiry out of bounds.
void validate_schedule(const ScheduleSpec& spec, std::size_t max_payload = kDefaultMaxPayloadBytes);
// A schedule name: 1..kMaxScheduleNameBytes bytes of printable ASCII without braces or spaces.
// Throws InvalidArgument.
void validate_schedule_name(std::string_view name);
// The id of the message of the occurrence at `instant`: "schedule:<name>:<unix ms>".
std::string schedule_message_id(std::string_view name, TimePoint instant);

// The first `count` occurrences of `spec` strictly after `from` (fewer when it ends), computed
// here, nothing read or written. `anchor` is the anchor of an `every` without `start` (the
// schedule's first upsert: ScheduleInfo::anchor); max_runs is not applied. Validates first.
std::vector<TimePoint> next_occurrences(const ScheduleSpec& spec, TimePoint from, std::size_t count,
                                        TimePoint anchor = TimePoint{});

// Where the message of a schedule's last occurrence is, as get() and list() found it.
enum class LastOutcome {
    kNone,      // nothing sent yet
    kPending,   // scheduled or ready
    kInFlight,  // leased by a consumer
    kDead,      // dead-lettered (last_dead_reason says why)
    kGone,      // no longer in the queue: acked (or cancelled, or purged from the dead letters)
};
std::string_view to_string(LastOutcome outcome);

struct ScheduleInfo {
    std::string name;
    ScheduleSpec spec;
    bool paused = false;
    // The anchor of `every` (the first upsert's time, or start), and when the schedule was
    // created and last changed (Redis clock).
    TimePoint anchor{};
    TimePoint created{};
    TimePoint updated{};
    // The next instant a message of the schedule falls due: the occurrence sent ahead, or the
    // next one to be claimed. nullopt when paused or ended (end, max_runs).
    std::optional<TimePoint> next{};
    // The instant of the last occurrence sent, its message id and where that message is.
    std::optional<TimePoint> last_fired{};
    std::string last_id{};
    LastOutcome last_outcome = LastOutcome::kNone;
    std::string last_dead_reason{};
    std::uint64_t runs = 0;     // occurrences sent (trigger() not counted)
    std::uint64_t missed = 0;   // occurrences not sent by the catch-up policy
    std::uint64_t skipped = 0;  // occurrences not sent by overlap kSkip
};

struct SchedulePage {
    std::vector<ScheduleInfo> schedules;
    std::string next_cursor;  // empty when this page is the last
};

enum class PutStatus {
    kCreated,
    kUpdated,    // the spec changed: the occurrence sent ahead (if still scheduled) was cancelled
                 // and the new spec's next one sent
    kUnchanged,  // upsert of an identical spec: nothing written
    kExists,     // add of a name that exists: nothing written
};

struct PutResult {
    PutStatus status = PutStatus::kCreated;
    std::optional<TimePoint> next{};  // as ScheduleInfo::next after the call
};

struct TriggerResult {
    std::string id;  // the message sent, due now
    TimePoint instant;
};

// The schedules of one queue (Client::schedules). Cheap to copy; thread-safe. Each change is
// one script call (after a read of the schedule, for those that compute occurrences); bad
// input throws InvalidArgument and writes nothing. Changing a spec, pausing and removing cancel
// the occurrence sent ahead while it is still scheduled.
class Schedules {
  public:
    const std::string& queue() const;

    // kExists when the name is taken (nothing changes).
    PutResult add(std::string_view name, const ScheduleSpec& spec);
    // Creates, or changes the spec; an identical spec changes nothing (kUnchanged), so a deploy
    // may declare its schedules at every start.
    PutResult upsert(std::string_view name, const ScheduleSpec& spec);
    std::optional<ScheduleInfo> get(std::string_view name);
    // By name order of Redis's hash scan (not sorted), a page at a time.
    SchedulePage list(const PageRequest& page = {});
    // false when there is no such schedule. Pausing twice, or resuming a running schedule,
    // changes nothing and returns true. Resuming sends the next occurrence after now: those
    // while paused are not sent.
    bool pause(std::string_view name);
    bool resume(std::string_view name);
    bool remove(std::string_view name);
    // Sends one occurrence now (id from the current instant), leaving the schedule's own
    // occurrences as they are; nullopt when there is no such schedule.
    std::optional<TriggerResult> trigger(std::string_view name);
    // The next `count` occurrences after `from` (default: the Redis clock's now) computed from
    // the stored spec, nothing written; nullopt when there is no such schedule.
    std::optional<std::vector<TimePoint>> next(std::string_view name, std::size_t count,
                                               std::optional<TimePoint> from = std::nullopt);

  private:
    friend class Client;
    explicit Schedules(std::shared_ptr<detail::QueueCore> core);
    std::shared_ptr<detail::QueueCore> core_;
};

}  // namespace delayq
