#include "codec/schedule.hpp"

#include <openssl/evp.h>

#include <array>
#include <string>

#include "codec/common.hpp"
#include "delayq/error.hpp"
#include "delayq/limits.hpp"
#include "hex.hpp"

namespace delayq::detail::schedule_codec {
namespace {

// The spec's values in lib/schedule.lua's SCHEDULE_SPEC order.
constexpr std::size_t kSpecValues = 12;
// schedule_get.lua: after the name and the spec, per schedule.
constexpr std::size_t kGetStateValues = 13;
// schedule_poll.lua: after the name and the spec, claim_at, anchor and next.
constexpr std::size_t kPollStateValues = 3;

std::string ms_text(std::optional<TimePoint> t) {
    return t ? std::to_string(t->time_since_epoch().count()) : "-1";
}

void add_spec(ScriptArgs& args, const ScheduleSpec& spec, std::string_view hash) {
    const bool cron = !spec.cron.empty();
    args.add(cron ? std::string_view("cron") : std::string_view("every"));
    if (cron) {
        args.add(std::string_view(spec.cron));
    } else {
        args.add(static_cast<std::int64_t>(spec.every.count()));
    }
    args.add(std::string_view(spec.tz));
    args.add(std::string_view(spec.payload));
    args.add(static_cast<std::int64_t>(spec.max_attempts));
    args.add(static_cast<std::int64_t>(spec.expire_after.count()));
    args.add(spec.start ? spec.start->time_since_epoch().count() : -1);
    args.add(spec.end ? spec.end->time_since_epoch().count() : -1);
    args.add(static_cast<std::int64_t>(spec.max_runs));
    args.add(to_string(spec.overlap));
    args.add(to_string(spec.catch_up));
    args.add(hash);
}

std::int64_t int_of(const Reply& r, const char* what) {
    if (r.type == Reply::Type::kInteger) return r.integer;
    return decimal(r.as_string(), what);
}

std::optional<TimePoint> optional_time(const Reply& r, const char* what) {
    return optional_unix_ms(int_of(r, what));
}

// The spec at values[at..at + kSpecValues), and its hash.
ScheduleSpec decode_spec(const std::vector<Reply>& values, std::size_t at, std::string& hash) {
    ScheduleSpec spec;
    const std::string& kind = values.at(at).as_string();
    if (kind == "cron") {
        spec.cron = values.at(at + 1).as_string();
    } else {
        spec.every = Duration(int_of(values.at(at + 1), "every"));
    }
    spec.tz = values.at(at + 2).as_string();
    spec.payload = values.at(at + 3).as_string();
    spec.max_attempts = static_cast<int>(int_of(values.at(at + 4), "max_attempts"));
    spec.expire_after = Duration(int_of(values.at(at + 5), "expire_after"));
    spec.start = optional_time(values.at(at + 6), "start");
    spec.end = optional_time(values.at(at + 7), "end");
    spec.max_runs = static_cast<std::uint64_t>(int_of(values.at(at + 8), "max_runs"));
    auto overlap = parse_overlap(values.at(at + 9).as_string());
    auto catch_up = parse_catch_up(values.at(at + 10).as_string());
    if (!overlap || !catch_up) throw ServerError("a stored schedule has an unknown policy");
    spec.overlap = *overlap;
    spec.catch_up = *catch_up;
    hash = values.at(at + 11).as_string();
    return spec;
}

LastOutcome outcome_of(const std::string& text) {
    if (text == "pending") return LastOutcome::kPending;
    if (text == "in_flight") return LastOutcome::kInFlight;
    if (text == "dead") return LastOutcome::kDead;
    if (text == "gone") return LastOutcome::kGone;
    return LastOutcome::kNone;
}

}  // namespace

std::string spec_hash(const ScheduleSpec& spec) {
    std::string text;
    const auto field = [&text](std::string_view value) {
        text.append(std::to_string(value.size())).append(":").append(value);
    };
    field(spec.cron);
    field(std::to_string(spec.every.count()));
    field(spec.tz);
    field(spec.payload);
    field(std::to_string(spec.max_attempts));
    field(std::to_string(spec.expire_after.count()));
    field(ms_text(spec.start));
    field(ms_text(spec.end));
    field(std::to_string(spec.max_runs));
    field(to_string(spec.overlap));
    field(to_string(spec.catch_up));
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int size = 0;
    if (EVP_Digest(text.data(), text.size(), digest.data(), &size, EVP_sha256(), nullptr) != 1) {
        throw Error("schedule: no SHA-256 from OpenSSL");
    }
    return lower_hex(std::span(digest.data(), size));
}

std::string id_prefix(std::string_view name) { return "schedule:" + std::string(name) + ":"; }

ScriptArgs encode_put(const PutRequest& request) {
    ScriptArgs args;
    switch (request.mode) {
        case PutMode::kAdd:
            args.add(std::string_view("add"));
            break;
        case PutMode::kUpsert:
            args.add(std::string_view("upsert"));
            break;
        case PutMode::kResume:
            args.add(std::string_view("resume"));
            break;
    }
    args.add(request.name);
    args.add(request.expected);
    args.add_owned(id_prefix(request.name));
    add_spec(args, request.spec, request.hash);
    args.add(request.anchor.time_since_epoch().count());
    args.add_owned(ms_text(request.first));
    args.add_owned(ms_text(request.then));
    return args;
}

PutAnswer decode_put(const Reply& reply) {
    return PutAnswer{reply.at(0).as_string(), optional_time(reply.at(1), "next")};
}

ScriptArgs encode_get_one(std::string_view name) {
    ScriptArgs args;
    args.add(std::string_view("one"));
    args.add(name);
    return args;
}

ScriptArgs encode_get_page(std::string_view cursor, std::size_t count) {
    if (count < 1 || count > kMaxBatch) {
        throw InvalidArgument("a page of schedules holds 1 to " + std::to_string(kMaxBatch));
    }
    ScriptArgs args;
    args.add(std::string_view("page"));
    args.add(cursor.empty() ? std::string_view("0") : cursor);
    args.add(static_cast<std::int64_t>(count));
    return args;
}

GetAnswer decode_get(const Reply& reply) {
    const auto& values = reply.as_array();
    GetAnswer out{unix_ms(int_of(reply.at(0), "now")), reply.at(1).as_string(), {}};
    constexpr std::size_t kEach = 1 + kSpecValues + kGetStateValues;
    if ((values.size() - 2) % kEach != 0) throw ServerError("schedule_get: a malformed reply");
    for (std::size_t at = 2; at < values.size(); at += kEach) {
        Stored s;
        ScheduleInfo& info = s.info;
        info.name = values[at].as_string();
        info.spec = decode_spec(values, at + 1, s.hash);
        const std::size_t st = at + 1 + kSpecValues;
        info.anchor = unix_ms(int_of(values[st], "anchor"));
        info.created = unix_ms(int_of(values[st + 1], "created"));
        info.updated = unix_ms(int_of(values[st + 2], "updated"));
        info.paused = int_of(values[st + 3], "paused") != 0;
        info.next = optional_time(values[st + 4], "next");
        info.last_fired = optional_time(values[st + 5], "last");
        info.last_id = values[st + 6].as_string();
        info.last_outcome = outcome_of(values[st + 7].as_string());
        info.last_dead_reason = values[st + 8].as_string();
        info.runs = static_cast<std::uint64_t>(int_of(values[st + 9], "runs"));
        info.missed = static_cast<std::uint64_t>(int_of(values[st + 10], "missed"));
        info.skipped = static_cast<std::uint64_t>(int_of(values[st + 11], "skipped"));
        s.pending_next = optional_time(values[st + 12], "next");
        out.schedules.push_back(std::move(s));
    }
    return out;
}

ScriptArgs encode_poll(std::size_t limit) {
    ScriptArgs args;
    args.add(static_cast<std::int64_t>(limit));
    return args;
}

PollAnswer decode_poll(const Reply& reply) {
    const auto& values = reply.as_array();
    PollAnswer out{unix_ms(int_of(reply.at(0), "now")), optional_time(reply.at(1), "next"), {}};
    constexpr std::size_t kEach = 1 + kSpecValues + kPollStateValues;
    if ((values.size() - 2) % kEach != 0) throw ServerError("schedule_poll: a malformed reply");
    for (std::size_t at = 2; at < values.size(); at += kEach) {
        DueSchedule d;
        d.name = values[at].as_string();
        d.spec = decode_spec(values, at + 1, d.hash);
        d.claim_at = unix_ms(int_of(values[at + 1 + kSpecValues], "claim_at"));
        d.anchor = unix_ms(int_of(values[at + 2 + kSpecValues], "anchor"));
        d.next = optional_time(values[at + 3 + kSpecValues], "next");
        out.due.push_back(std::move(d));
    }
    return out;
}

ScriptArgs encode_claim(const ClaimRequest& request) {
    ScriptArgs args;
    args.add(request.name);
    args.add(request.hash);
    args.add(request.expected.time_since_epoch().count());
    args.add_owned(id_prefix(request.name));
    args.add_owned(ms_text(request.then));
    args.add(static_cast<std::int64_t>(request.missed));
    for (const TimePoint t : request.instants) args.add(t.time_since_epoch().count());
    return args;
}

ClaimAnswer decode_claim(const Reply& reply) {
    return ClaimAnswer{reply.at(0).as_string(),
                       static_cast<std::size_t>(int_of(reply.at(1), "sent")),
                       static_cast<std::size_t>(int_of(reply.at(2), "skipped")),
                       optional_time(reply.at(3), "claim_at")};
}

ScriptArgs encode_stop(bool remove, std::string_view name) {
    ScriptArgs args;
    args.add(remove ? std::string_view("remove") : std::string_view("pause"));
    args.add(name);
    return args;
}

StopAnswer decode_stop(const Reply& reply) {
    return StopAnswer{reply.at(0).as_string() != "not_found",
                      static_cast<std::size_t>(int_of(reply.at(1), "left"))};
}

ScriptArgs encode_trigger(std::string_view name) {
    ScriptArgs args;
    args.add(name);
    args.add_owned(id_prefix(name));
    return args;
}

std::optional<TriggerResult> decode_trigger(const Reply& reply, std::string_view name) {
    if (reply.at(0).as_string() == "not_found") return std::nullopt;
    const TimePoint instant = unix_ms(int_of(reply.at(1), "instant"));
    return TriggerResult{id_prefix(name) + std::to_string(instant.time_since_epoch().count()),
                         instant};
}

}  // namespace delayq::detail::schedule_codec
