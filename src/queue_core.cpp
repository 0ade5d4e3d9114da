#include "queue_core.hpp"

#include <algorithm>
#include <charconv>

#include "delayq/error.hpp"
#include "record.hpp"
#include "redis/script.hpp"
#include "validate.hpp"

namespace delayq::detail {
namespace {

TimePoint at_ms(std::int64_t ms) { return TimePoint(Duration(ms)); }

std::optional<TimePoint> optional_ms(std::int64_t ms) {
    if (ms < 0) return std::nullopt;
    return at_ms(ms);
}

// A number the scripts send as decimal digits (a score as Redis formats it).
std::int64_t decimal(std::string_view text, const char* what) {
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size()) {
        throw ServerError(std::string(what) + " is not an integer: " + std::string(text));
    }
    return n;
}

std::string_view truncate_error(std::string_view text) {
    return text.substr(0, std::min(text.size(), kMaxErrorBytes));
}

void add_leases(ScriptArgs& args, std::span<const LeaseRef> leases) {
    for (const auto& lease : leases) args.add_owned(lease_member(lease.token, lease.id));
}

void check_leases(std::span<const LeaseRef> leases) {
    if (leases.empty() || leases.size() > kMaxBatch) {
        throw InvalidArgument("between 1 and " + std::to_string(kMaxBatch) +
                              " deliveries per call");
    }
}

// Decodes one message of list.lua / get.lua: nine fields from `first`, the id given apart.
MessageInfo decode_info(std::string id, State state, const std::vector<Reply>& f,
                        std::size_t first) {
    MessageInfo m;
    m.id = std::move(id);
    m.state = state;
    std::int64_t score = f.at(first).as_int();
    m.attempts = static_cast<int>(f.at(first + 1).as_int());
    m.max_attempts = static_cast<int>(f.at(first + 2).as_int());
    if (std::int64_t expire = f.at(first + 3).as_int(); expire > 0) m.expire_at = at_ms(expire);
    m.due = at_ms(f.at(first + 4).as_int());
    m.dead_reason = f.at(first + 5).as_string();
    m.last_error = f.at(first + 6).as_string();
    m.payload = f.at(first + 7).as_string();
    if (state == State::kInFlight) m.lease_deadline = at_ms(score);
    if (state == State::kDead) m.dead_at = at_ms(score);
    return m;
}

}  // namespace

QueueCore::QueueCore(std::shared_ptr<ClientCore> client, std::string name, QueueOptions options)
    : client_(std::move(client)),
      name_(std::move(name)),
      options_(options),
      keys_(make_keys(name_)) {}

std::vector<SendResult> QueueCore::send(Connection& conn, std::span<const MessageRef> messages) {
    SendCall call = send_call(messages);
    return send_results(run_script(conn, scripts::kSend, keys_, call.args), messages, call);
}

SendCall QueueCore::send_call(std::span<const MessageRef> messages) const {
    if (messages.empty() || messages.size() > kMaxBatch) {
        throw InvalidArgument("a batch holds 1 to " + std::to_string(kMaxBatch) + " messages");
    }
    SendCall call;
    // Consecutive messages with equal options form one run, which states them once (send.lua).
    struct RunOptions {
        std::optional<std::int64_t> at_ms;
        std::int64_t delay_ms = 0;
        int max_attempts = 0;
        std::int64_t expire_after_ms = 0;
        bool with_ids = false;
        bool operator==(const RunOptions&) const = default;
    };
    std::size_t next = 0;
    while (next < messages.size()) {
        RunOptions run;
        std::size_t end = next;
        for (; end < messages.size(); ++end) {
            const MessageRef& m = messages[end];
            validate_payload(m.payload, options_.max_payload_bytes);
            validate_send(*m.options);
            const SendOptions& o = *m.options;
            const std::int64_t expire_after_ms = o.expire_after.count();
            RunOptions these{o.at ? std::optional(validate_time(*o.at, "due time")) : std::nullopt,
                             static_cast<std::int64_t>(o.delay.count()),
                             o.max_attempts > 0 ? o.max_attempts : options_.default_max_attempts,
                             expire_after_ms,
                             // Only a generated id without expiry has a record built here.
                             !o.id.empty() || expire_after_ms > 0};
            if (end == next) {
                run = these;
            } else if (!(these == run)) {
                break;
            }
        }
        call.args.add(static_cast<std::int64_t>(end - next));
        call.args.add(std::string_view(run.with_ids ? "1" : "0"));
        if (run.at_ms) {
            call.args.add(*run.at_ms);
        } else {
            call.args.add(std::string_view{});
        }
        call.args.add(run.delay_ms);
        call.args.add(static_cast<std::int64_t>(run.max_attempts));
        call.args.add(run.expire_after_ms);
        for (; next < end; ++next) {
            if (run.with_ids) {
                call.args.add(messages[next].options->id);
                call.args.add(messages[next].payload);
            } else {
                call.args.add_owned(short_record(run.max_attempts, messages[next].payload));
            }
        }
        call.run_ends.push_back(end);
    }
    return call;
}

std::vector<SendResult> QueueCore::send_results(const Reply& reply,
                                                std::span<const MessageRef> messages,
                                                const SendCall& call) const {
    const auto& flat = reply.as_array();
    const std::size_t runs = call.run_ends.size();
    if (flat.size() < 1 + runs) throw ServerError("send: malformed reply");
    const auto first = static_cast<std::uint64_t>(flat[0].as_int());
    std::size_t next_value = 1 + runs;  // the answers for caller ids follow the runs' due times
    std::vector<SendResult> out;
    out.reserve(messages.size());
    std::size_t run = 0;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        while (i >= call.run_ends.at(run)) ++run;
        const TimePoint run_due = at_ms(flat[1 + run].as_int());
        const std::string& id = messages[i].options->id;
        if (id.empty()) {
            out.push_back(SendResult{sequence_key(first + i), false, run_due});
            continue;
        }
        if (next_value >= flat.size()) throw ServerError("send: malformed reply");
        const std::int64_t held = flat[next_value++].as_int();
        out.push_back(held < 0 ? SendResult{id, false, run_due}
                               : SendResult{id, true, at_ms(held)});
    }
    if (next_value != flat.size()) throw ServerError("send: malformed reply");
    return out;
}

FetchResult QueueCore::fetch(Connection& conn, std::size_t max_count, Duration visibility) {
    if (max_count < 1 || max_count > kMaxBatch) {
        throw InvalidArgument("fetch takes 1 to " + std::to_string(kMaxBatch) + " messages");
    }
    ScriptArgs args;
    args.add(static_cast<std::int64_t>(max_count));
    args.add(validate_visibility(visibility));
    args.add(static_cast<std::int64_t>(options_.dead_max_count));
    args.add(static_cast<std::int64_t>(options_.dead_max_age.count()));
    Reply r = run_script(conn, scripts::kFetch, keys_, args);
    FetchResult out;
    out.now = at_ms(r.at(0).as_int());
    out.next = optional_ms(r.at(1).as_int());
    r.at(2).as_array();  // checks the shape; the payloads are then moved out, not copied
    auto& d = r.elements[2].elements;
    out.deliveries.reserve(d.size() / 2);
    // Runs of deliveries sharing due time, attempt and max_attempts (fetch.lua).
    std::size_t at = 0;
    while (at < d.size()) {
        if (at + 4 > d.size()) throw ServerError("fetch: a delivery run without its header");
        const TimePoint due = at_ms(decimal(d[at].as_string(), "fetch: due time"));
        const auto attempt = static_cast<int>(d[at + 1].as_int());
        const auto max_attempts = static_cast<int>(d[at + 2].as_int());
        const std::int64_t count = d[at + 3].as_int();
        at += 4;
        if (count < 1 || static_cast<std::uint64_t>(count) > (d.size() - at) / 2) {
            throw ServerError("fetch: a delivery run of " + std::to_string(count) +
                              " with room for fewer");
        }
        for (std::int64_t k = 0; k < count; ++k, at += 2) {
            const auto [token, id] = split_lease(d[at].as_string());
            out.deliveries.emplace_back(name_, std::string(id), std::move(d[at + 1].str), token,
                                        attempt, max_attempts, due, out.now);
        }
    }
    const auto& e = r.at(3).as_array();
    for (std::size_t i = 0; i + 2 < e.size(); i += 3) {
        out.dead_lettered.push_back(DeadLetterEvent{name_, e[i].as_string(), e[i + 1].as_string(),
                                                    static_cast<int>(e[i + 2].as_int())});
    }
    return out;
}

std::vector<AckResult> QueueCore::ack(Connection& conn, std::span<const LeaseRef> leases) {
    check_leases(leases);
    ScriptArgs args;
    add_leases(args, leases);
    Reply r = run_script(conn, scripts::kAck, keys_, args);
    std::vector<AckResult> out;
    if (r.type == Reply::Type::kInteger) {
        // Every lease was held: the script says so with their count instead of n ones.
        if (r.integer != static_cast<std::int64_t>(leases.size())) {
            throw ServerError("ack: " + std::to_string(r.integer) + " acked of " +
                              std::to_string(leases.size()));
        }
        out.assign(leases.size(), AckResult::kAcked);
        return out;
    }
    for (const auto& x : r.as_array()) {
        out.push_back(x.as_int() == 1 ? AckResult::kAcked : AckResult::kLeaseLost);
    }
    return out;
}

NackResult QueueCore::nack(Connection& conn, const LeaseRef& lease, Duration delay,
                           std::string_view error, bool dead_now) {
    ScriptArgs args;
    args.add_owned(lease_member(lease.token, lease.id));
    args.add(validate_delay(delay, "nack delay"));
    args.add(truncate_error(error));
    args.add(dead_now ? std::string_view("dead") : std::string_view("retry"));
    args.add(static_cast<std::int64_t>(options_.dead_max_count));
    args.add(static_cast<std::int64_t>(options_.dead_max_age.count()));
    Reply r = run_script(conn, scripts::kNack, keys_, args);
    const std::string& status = r.at(0).as_string();
    NackResult out;
    if (status == "retry") {
        out.status = NackStatus::kRetrying;
        out.due = at_ms(r.at(1).as_int());
    } else if (status == "dead") {
        out.status = NackStatus::kDeadLettered;
        out.dead_reason = r.at(1).as_string();
        out.attempts = static_cast<int>(r.at(2).as_int());
    }
    return out;
}

std::vector<std::optional<TimePoint>> QueueCore::extend(Connection& conn,
                                                        std::span<const LeaseRef> leases,
                                                        Duration visibility) {
    check_leases(leases);
    ScriptArgs args;
    args.add(validate_visibility(visibility));
    add_leases(args, leases);
    Reply r = run_script(conn, scripts::kExtend, keys_, args);
    std::vector<std::optional<TimePoint>> out;
    for (const auto& x : r.as_array()) {
        std::int64_t deadline = x.as_int();
        out.push_back(deadline > 0 ? std::optional(at_ms(deadline)) : std::nullopt);
    }
    return out;
}

std::vector<bool> QueueCore::release(Connection& conn, std::span<const LeaseRef> leases) {
    check_leases(leases);
    ScriptArgs args;
    add_leases(args, leases);
    Reply r = run_script(conn, scripts::kRelease, keys_, args);
    std::vector<bool> out;
    for (const auto& x : r.as_array()) out.push_back(x.as_int() == 1);
    return out;
}

CancelResult QueueCore::cancel(Connection& conn, std::string_view id) {
    validate_id(id);
    ScriptArgs args;
    args.add(id);
    const std::string status = run_script(conn, scripts::kCancel, keys_, args).as_string();
    if (status == "cancelled") return CancelResult::kCancelled;
    if (status == "in_flight") return CancelResult::kInFlight;
    if (status == "dead") return CancelResult::kDead;
    return CancelResult::kNotFound;
}

RescheduleResult QueueCore::reschedule(Connection& conn, std::string_view id,
                                       std::optional<std::int64_t> at, std::int64_t delay_ms) {
    validate_id(id);
    ScriptArgs args;
    args.add(id);
    if (at) {
        args.add(*at);
    } else {
        args.add(std::string_view{});
    }
    args.add(delay_ms);
    Reply r = run_script(conn, scripts::kReschedule, keys_, args);
    const std::string& status = r.at(0).as_string();
    RescheduleResult out;
    out.due = at_ms(r.at(1).as_int());
    if (status == "rescheduled") {
        out.status = RescheduleStatus::kRescheduled;
    } else if (status == "in_flight") {
        out.status = RescheduleStatus::kInFlight;
    } else if (status == "dead") {
        out.status = RescheduleStatus::kDead;
    }
    return out;
}

std::optional<MessageInfo> QueueCore::get(Connection& conn, std::string_view id) {
    validate_id(id);
    ScriptArgs args;
    args.add(id);
    Reply r = run_script(conn, scripts::kGet, keys_, args);
    const auto& f = r.as_array();
    if (f.empty()) return std::nullopt;
    auto state = parse_state(f.at(0).as_string());
    if (!state) throw ServerError("get: unknown state in reply");
    return decode_info(std::string(id), *state, f, 1);
}

QueueStats QueueCore::stats(Connection& conn) {
    Reply r = run_script(conn, scripts::kStats, keys_, ScriptArgs{});
    QueueStats s;
    s.now = at_ms(r.at(0).as_int());
    s.scheduled = static_cast<std::size_t>(r.at(1).as_int());
    s.ready = static_cast<std::size_t>(r.at(2).as_int());
    s.in_flight = static_cast<std::size_t>(r.at(3).as_int());
    s.dead = static_cast<std::size_t>(r.at(4).as_int());
    s.oldest_due = optional_ms(r.at(5).as_int());
    s.next_due = optional_ms(r.at(6).as_int());
    if (s.oldest_due && *s.oldest_due <= s.now) s.oldest_overdue_age = s.now - *s.oldest_due;
    const auto& t = r.at(7).as_array();
    struct Field {
        std::string_view name;
        std::uint64_t Totals::*member;
    };
    static constexpr Field kFields[] = {
        {"sent", &Totals::sent},
        {"delivered", &Totals::delivered},
        {"acked", &Totals::acked},
        {"retried", &Totals::retried},
        {"dead_lettered", &Totals::dead_lettered},
        {"expired", &Totals::expired},
        {"cancelled", &Totals::cancelled},
        {"released", &Totals::released},
        {"requeued", &Totals::requeued},
        {"purged", &Totals::purged},
        {"dead_trimmed", &Totals::dead_trimmed},
        {"orphans_removed", &Totals::orphans_removed},
    };
    for (std::size_t i = 0; i + 1 < t.size(); i += 2) {
        for (const auto& f : kFields) {
            if (t[i].as_string() == f.name) {
                s.totals.*f.member = std::stoull(t[i + 1].as_string());
            }
        }
    }
    return s;
}

std::vector<MessageInfo> QueueCore::list(Connection& conn, State state, Page page) {
    if (page.limit < 1 || page.limit > kMaxBatch) {
        throw InvalidArgument("page limit must be from 1 to " + std::to_string(kMaxBatch));
    }
    ScriptArgs args;
    args.add(to_string(state));
    args.add(static_cast<std::int64_t>(page.offset));
    args.add(static_cast<std::int64_t>(page.limit));
    Reply r = run_script(conn, scripts::kList, keys_, args);
    const auto& items = r.at(1).as_array();
    std::vector<MessageInfo> out;
    for (std::size_t i = 0; i + 8 < items.size(); i += 9) {
        out.push_back(decode_info(items[i].as_string(), state, items, i + 1));
    }
    return out;
}

std::pair<std::size_t, std::size_t> QueueCore::dead_letters(Connection& conn,
                                                            const ScriptSource& script,
                                                            std::span<const std::string> ids,
                                                            std::size_t limit) {
    if (ids.size() > kMaxBatch || limit < 1 || limit > kMaxBatch) {
        throw InvalidArgument("1 to " + std::to_string(kMaxBatch) + " dead letters per call");
    }
    ScriptArgs args;
    args.add(static_cast<std::int64_t>(std::max(limit, ids.size())));
    for (const auto& id : ids) {
        validate_id(id);
        args.add(id);
    }
    Reply r = run_script(conn, script, keys_, args);
    return {static_cast<std::size_t>(r.at(0).as_int()), static_cast<std::size_t>(r.at(1).as_int())};
}

}  // namespace delayq::detail
