#pragma once

// A plain in-memory model of one queue as docs/design.md states it (sections 2-4 and 6): what
// every public operation must answer and how it must change the queue, given the Redis clock.
// No Redis, no storage layout (msg / cold / blocks are invisible here), no concurrency: the
// reference the model test compares a real queue with after every step.
//
// Each operation returns what the library must answer, or nullopt when it must refuse the
// input with InvalidArgument and change nothing. What the model cannot know in advance (the
// generated ids and the delivery tokens Redis hands out) is bound afterwards from the real
// answer: name_generated() and bind_tokens().
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "delayq/delayq.hpp"

namespace delayq::model {

inline constexpr std::int64_t kMaxTimeMs = 253'402'300'799'999;  // 9999-12-31T23:59:59.999Z
inline constexpr std::size_t kMaxBatch = 1000;
inline constexpr std::size_t kSweepLimit = 200;  // lapsed leases a fetch handles
inline constexpr std::size_t kTrimLimit = 100;   // dead letters a retention trim removes
inline constexpr std::size_t kMaxErrorBytes = 4096;
inline constexpr std::size_t kLatenessBuckets = 19;

// What an operation must answer; nullopt: InvalidArgument, nothing changed.
template <class T>
using Expect = std::optional<T>;

enum class Place { kPending, kInFlight, kDead };

// A message as the model holds it.
struct Entry {
    std::string id;
    std::uint64_t order = 0;  // send order: ties in every sorted set are broken by it
    Place place = Place::kPending;
    // Pending: the due time. In flight: the lease deadline. Dead: when it was dead-lettered.
    std::int64_t score = 0;
    // The due time of the current or last delivery (while pending the score is the due time).
    std::int64_t due = 0;
    std::uint64_t token = 0;  // in flight only
    int attempts = 0;
    int max_attempts = 0;  // 0: the queue's setting, read when it matters
    std::int64_t expire = 0;
    std::string reason;
    std::optional<std::string> last_error;
    std::string payload;
};

struct ExpectedDelivery {
    std::string id;
    std::string payload;
    int attempt = 0;
    int max_attempts = 0;
    std::int64_t due = 0;
    std::string last_error;
};

struct ExpectedFetch {
    std::string queue;
    std::vector<ExpectedDelivery> deliveries;
    std::vector<DeadLetterEvent> dead_lettered;
    std::int64_t now = 0;
    std::optional<std::int64_t> next;
};

// What a pusher's lease must answer (push_lease.lua).
struct ExpectedPushLease {
    ExpectedFetch fetch;
    bool limited = false;
    bool has_target = true;
};

// A queue's push target as the model keeps it: what was set, and the rate limit's bucket.
struct PushState {
    PushTarget target;
    std::int64_t updated = 0;
    std::optional<double> tokens;  // none: a full bucket
    std::int64_t tokens_at = 0;
    std::optional<PushOutcome> last;
};

// A cron schedule whose occurrences the model follows by arithmetic, without the library's
// cron or zones: the instants phase + k * period (unix ms), worked out by hand from the
// expression and its zone (one without daylight saving).
struct CronCase {
    std::string cron;
    std::string tz;
    std::int64_t period_ms = 0;
    std::int64_t phase_ms = 0;
};
const std::vector<CronCase>& cron_cases();

// A recurring schedule as the model keeps it (lib/schedule.lua's record).
struct ScheduleState {
    ScheduleSpec spec;
    bool paused = false;
    std::int64_t anchor = 0;
    std::int64_t created = 0;
    std::int64_t updated = 0;
    std::int64_t next = -1;   // the next occurrence not yet sent; -1: ended
    std::int64_t ahead = -1;  // the last occurrence sent, and its message
    std::string ahead_id;
    std::int64_t prev = -1;  // the one before
    std::string prev_id;
    std::uint64_t runs = 0;
    std::uint64_t missed = 0;
    std::uint64_t skipped = 0;
};

// What one scheduler's passes over the queue did (its SchedulerStats).
struct ClaimCounts {
    std::uint64_t claims = 0;
    std::uint64_t fired = 0;
    std::uint64_t missed = 0;
    std::uint64_t skipped = 0;
};

enum class PutMode { kAdd, kUpsert, kResume };

class QueueModel {
  public:
    explicit QueueModel(std::string name);

    const std::string& name() const { return name_; }
    // The Redis clock, which the test moves (never backwards).
    void set_now_us(std::int64_t now_us);
    std::int64_t now_ms() const { return now_us_ / 1000; }

    // Producers. send() covers send, send_async and send_batch: a single send is a batch of
    // one. A generated id is left empty in the answer until name_generated() binds it.
    Expect<std::vector<SendResult>> send(std::span<const delayq::Message> batch,
                                         const QueueOptions& options);
    // Binds the ids Redis generated for the last send, in order. Returns what is wrong with
    // them ("" when nothing is): a generated id must be new and of the generated form.
    std::string name_generated(const std::vector<SendResult>& actual);
    // Generated ids of the last send not bound yet (its answer was lost).
    std::size_t unnamed() const { return unnamed_.size(); }
    // Whether the send script refuses these (valid) options at this clock: what validate_due
    // must say too.
    bool script_refuses(const SendOptions& options) const;
    Expect<CancelResult> cancel(const std::string& id);
    Expect<RescheduleResult> reschedule(const std::string& id, Duration delay);
    Expect<RescheduleResult> reschedule_at(const std::string& id, TimePoint at);

    // Consumers.
    Expect<ExpectedFetch> fetch(std::size_t max_count, Duration visibility);
    // Binds the tokens of the last fetch's deliveries; "" or what does not fit.
    std::string bind_tokens(const std::vector<Delivery>& actual);
    // Whether the last fetch delivered messages whose tokens are not bound yet.
    bool unbound() const { return !unbound_.empty(); }
    // For a fetch whose answer was lost: binds its deliveries' tokens from the queue's in-flight
    // leases as read from Redis; "" or the deliveries not among them.
    std::string bind_read_tokens(const std::vector<Lease>& in_flight);
    Expect<std::vector<LeaseResult>> ack(std::span<const Lease> leases);
    Expect<LeaseResult> nack(const Lease& lease, const Nack& nack);
    LeaseResult reject(const Lease& lease, const Reject& reject);
    Expect<std::vector<LeaseResult>> extend(std::span<const Lease> leases, Duration visibility);
    Expect<std::vector<LeaseResult>> release(std::span<const Lease> leases);

    // Operators.
    Expect<std::optional<MessageInfo>> get(const std::string& id) const;
    std::vector<MessageInfo> list(State state) const;
    QueueStats stats() const;
    Expect<std::size_t> requeue(const DeadLetterSelector& which);
    Expect<std::size_t> purge(const DeadLetterSelector& which);
    const QueueSettings& settings() const { return settings_; }
    Expect<QueueSettings> update_settings(const SettingsUpdate& update);
    void set_paused(bool paused);
    DeleteResult delete_queue(bool force);

    // Push delivery (model_push.cpp): the target, a pusher's leases and its recorded answer.
    // The driver sets only targets the client validates.
    PushSetStatus push_set(const PushTarget& target);
    bool push_remove();
    std::optional<PushTargetInfo> push_get() const;
    Expect<ExpectedPushLease> push_lease(std::size_t max_count);
    bool push_record(int status, const std::string& error);
    const std::optional<PushState>& push() const { return push_; }

    // Recurring schedules (model_schedules.cpp), of `every` specs in UTC. A resume of no
    // schedule answers nullopt. The driver sends only valid specs and names.
    std::optional<PutResult> schedule_put(PutMode mode, const std::string& name,
                                          const ScheduleSpec* spec);
    bool schedule_pause(const std::string& name);
    bool schedule_remove(const std::string& name);
    std::optional<TriggerResult> schedule_trigger(const std::string& name);
    std::optional<ScheduleInfo> schedule_get(const std::string& name) const;
    // A scheduler running now, with the clock standing still: passes over the queue until no
    // claim is due, each claiming what its read found due, in the order of the claims.
    ClaimCounts schedule_claims();
    const std::map<std::string, ScheduleState>& schedules() const { return schedules_; }

    // Whether Client::queues() names it: it has counted something since it was created.
    bool listed() const;
    // The instants (ms) after now at which something changes by the clock alone: due times,
    // expiries, lease deadlines, dead letters leaving retention by age. The driver moves the
    // clock onto them and next to them, where off-by-one mistakes live.
    struct Instant {
        std::int64_t ms;
        std::string id;  // the message it is of
    };
    std::vector<Instant> instants() const;
    // The leases that hold a message now.
    std::vector<Lease> held_leases() const;
    const std::map<std::string, Entry>& messages() const { return messages_; }

  private:
    // fetch after its checks, also for push_lease: `cap`, called after the sweep of lapsed
    // leases, may lower max_count.
    ExpectedFetch fetch_due(std::size_t max_count, std::int64_t visibility_ms,
                            const std::function<std::size_t()>& cap);
    const Entry* held(const Lease& lease) const;
    Entry* held(const Lease& lease);
    int max_of(const Entry& m) const;
    std::int64_t backoff_ms(int attempts) const;
    // A message's members of one place, in the order of its sorted set.
    std::vector<Entry*> sorted(Place place);
    std::vector<const Entry*> sorted(Place place) const;
    void bury(Entry& m, const std::string& reason, const std::optional<std::string>& error,
              std::vector<DeadLetterEvent>* events);
    // A failed attempt (a lapsed lease, a nack): back to pending at `due`, counted as retried.
    void retry(Entry& m, std::int64_t due, std::string error);
    void trim_dead();
    void count_lateness(std::int64_t late_ms);
    Expect<std::vector<Entry*>> select_dead(const DeadLetterSelector& which);
    MessageInfo info(const Entry& m) const;
    // A new pending message, as a send or a schedule's occurrence makes it: last in send order.
    void add_pending(const std::string& id, std::int64_t due, int max_attempts, std::int64_t expire,
                     const std::string& payload);
    // Schedules: the occurrence after `t`, the send of one, the cancel of the one sent ahead,
    // when the next claim is due, and one claim.
    std::optional<std::int64_t> occurrence_after(const ScheduleState& s, std::int64_t t) const;
    bool send_occurrence(const ScheduleState& s, const std::string& id, std::int64_t due);
    void cancel_ahead(const ScheduleState& s);
    std::optional<std::int64_t> claim_at(const ScheduleState& s) const;
    void claim(const std::string& name, ScheduleState& s, ClaimCounts& counts);
    void note_write();

    std::string name_;
    std::int64_t now_us_ = 0;
    std::map<std::string, Entry> messages_;
    std::uint64_t next_order_ = 1;
    std::vector<std::string> unnamed_;  // placeholders of the last send's generated ids
    std::vector<std::string> unbound_;  // ids the last fetch delivered, awaiting their tokens
    std::uint64_t placeholder_ = 0;
    QueueSettings settings_{};
    Totals totals_{};
    std::array<std::uint64_t, kLatenessBuckets> lateness_{};
    std::int64_t lateness_sum_ = 0;
    std::optional<PushState> push_;
    std::map<std::string, ScheduleState> schedules_;
};

// The model's checks of input (docs/design.md section 8), kept apart from the library's own so
// that a test compares two readings of the rules, not one with itself. The numbers are the
// shared limits (delayq/limits.hpp), which the scripts read too.
bool valid_id(const std::string& id);
// Backoff settings the settings script accepts.
bool valid_backoff(const Backoff& b);
bool valid_caller_id(const std::string& id);
bool valid_send(const delayq::Message& m, const QueueOptions& options);
// Whether the send script refuses these (client-valid) options at `now_ms` on its clock.
bool script_refuses(const SendOptions& options, std::int64_t now_ms);

// The lease a text names (Lease::parse): 14 lowercase hex digits of a token other than 0, then
// a valid id; nullopt for anything else.
std::optional<Lease> parse_lease_text(const std::string& text);

// The lateness buckets' upper bounds in ms (the last, +Inf, is Duration::max()).
const std::array<Duration, kLatenessBuckets>& lateness_bounds();

}  // namespace delayq::model
