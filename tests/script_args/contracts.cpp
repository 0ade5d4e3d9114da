#include "contracts.hpp"

#include "delayq/limits.hpp"

namespace delayq::test::script_args {
namespace {

Param integer(std::string label, std::string valid, std::int64_t lo, std::int64_t hi) {
    return {.label = std::move(label),
            .kind = ArgKind::kInteger,
            .valid = std::move(valid),
            .lo = lo,
            .hi = hi};
}

Param time_ms(std::string label, std::string valid) {
    return integer(std::move(label), std::move(valid), 0, kMaxTimeMs);
}

Param time_or_none(std::string label, std::string valid) {
    return {.label = std::move(label), .kind = ArgKind::kTimeOrNone, .valid = std::move(valid)};
}

Param choice(std::string label, std::string valid, std::vector<std::string> choices) {
    return {.label = std::move(label),
            .kind = ArgKind::kChoice,
            .valid = std::move(valid),
            .choices = std::move(choices)};
}

Param text(std::string label, std::string valid, std::int64_t max_bytes) {
    return {.label = std::move(label),
            .kind = ArgKind::kText,
            .valid = std::move(valid),
            .hi = max_bytes};
}

Param any_bytes(std::string label, std::string valid) {
    return {.label = std::move(label), .kind = ArgKind::kAnyBytes, .valid = std::move(valid)};
}

Param id(std::string valid, bool unknown_is_answer = true) {
    return {.label = "id",
            .kind = ArgKind::kId,
            .valid = std::move(valid),
            .unknown_is_answer = unknown_is_answer};
}

Param lease(std::string valid) {
    return {.label = "lease",
            .kind = ArgKind::kLease,
            .valid = std::move(valid),
            .unknown_is_answer = true};
}

Param schedule_name(std::string valid, bool unknown_is_answer) {
    return {.label = "name",
            .kind = ArgKind::kScheduleName,
            .valid = std::move(valid),
            .unknown_is_answer = unknown_is_answer};
}

Param id_prefix(std::string valid) {
    return {.label = "id prefix", .kind = ArgKind::kIdPrefix, .valid = std::move(valid)};
}

// The scripts' limit on texts of a schedule (SCHEDULE_TEXT_MAX in lib/schedule.lua).
constexpr std::int64_t kScheduleTextMax = 4096;

std::vector<std::vector<Param>> settings_templates() {
    const auto value = [](std::string name, Param p) {
        return std::vector<Param>{
            choice("name", name,
                   {"max_attempts", "backoff_initial_ms", "backoff_max_ms", "backoff_multiplier",
                    "backoff_jitter", "dead_max_count", "dead_max_age_ms", "paused"}),
            std::move(p)};
    };
    const auto decimal = [](std::string valid, std::int64_t lo, std::int64_t hi) {
        return Param{.label = "value",
                     .kind = ArgKind::kDecimal,
                     .valid = std::move(valid),
                     .lo = lo,
                     .hi = hi};
    };
    return {{},
            value("max_attempts", integer("value", "9", 1, kMaxAttempts)),
            value("backoff_initial_ms", time_ms("value", "500")),
            value("backoff_max_ms", time_ms("value", "60000")),
            value("backoff_multiplier", decimal("1.5", 1, 1'000'000'000)),
            value("backoff_jitter", decimal("0.1", 0, 1)),
            value("dead_max_count", integer("value", "100", 0, kMaxDeadCount)),
            value("dead_max_age_ms", time_ms("value", "3600000")),
            value("paused", integer("value", "0", 0, 1))};
}

std::vector<Param> push_set_template() {
    return {text("url", "https://example.com/hook", kMaxPushUrlBytes),
            choice("method", "POST", {"POST", "PUT", "PATCH"}),
            text("content type", "application/json", kMaxPushHeaderBytes),
            integer("timeout_ms", "10000", kMinPushRequestTimeout.count(),
                    kMaxPushRequestTimeout.count()),
            integer("in_flight_max", "100", 1, kMaxPushInFlight),
            Param{.label = "rate",
                  .kind = ArgKind::kDecimal,
                  .valid = "0",
                  .lo = 0,
                  .hi = static_cast<std::int64_t>(kMaxPushRate)},
            integer("header count", "1", 0, kMaxPushHeaders),
            text("header name", "X-Token", kMaxPushHeaderBytes),
            Param{.label = "header value",
                  .kind = ArgKind::kHeaderValue,
                  .valid = "v",
                  .hi = kMaxPushHeaderBytes},
            integer("secret count", "1", 0, kMaxPushSecrets),
            text("secret", "whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3", kMaxPushHeaderBytes)};
}

std::vector<Param> schedule_put_template() {
    return {choice("mode", "upsert", {"add", "upsert", "resume"}),
            schedule_name("sa-new", false),
            Param{.label = "expected", .kind = ArgKind::kText, .valid = "", .hi = kScheduleTextMax},
            id_prefix("schedule:sa-new:"),
            choice("kind", "every", {"cron", "every"}),
            text("expr", "3600000", kScheduleTextMax),
            text("tz", "UTC", kScheduleTextMax),
            any_bytes("payload", "tick"),
            integer("max", "0", 0, kMaxAttempts),
            time_ms("exp", "0"),
            time_or_none("start", "-1"),
            time_or_none("stop", "-1"),
            integer("runs_max", "0", 0, static_cast<std::int64_t>(kMaxScheduleRuns)),
            choice("overlap", "allow", {"allow", "skip"}),
            choice("catch", "one", {"none", "one", "all"}),
            text("hash", "sa-hash", kScheduleTextMax),
            time_ms("anchor", "1000"),
            time_or_none("first", "-1"),
            time_or_none("then", "-1")};
}

std::vector<Param> send_template() {
    Param at = time_ms("at_ms", "");
    at.also_valid = {"*"};
    Param delay = time_ms("delay_ms", "0");
    delay.also_valid = {"*"};
    Param caller_id = id("sa-sent", false);
    caller_id.also_valid = {""};
    return {integer("count", "1", 1, kMaxBatch),
            choice("with_ids", "1", {"0", "1"}),
            at,
            delay,
            integer("max_attempts", "0", 0, kMaxAttempts),
            time_ms("expire_after_ms", "0"),
            caller_id,
            any_bytes("payload", "p")};
}

}  // namespace

std::optional<Contract> contract_of(std::string_view stem, const Population& p) {
    const std::string& held = p.leases.at(0);
    const auto one = [](std::vector<Param> args) {
        return Contract{.templates = {std::move(args)}};
    };
    const auto none = [](std::size_t keys = 16) {
        return Contract{.keys = keys, .templates = {{}}};
    };
    const std::vector<std::string> too_many_leases(kMaxBatch + 1, held);
    if (stem == "ack" || stem == "release") {
        Contract c = one({lease(held)});
        c.open_tail = true;
        c.also_malformed = {too_many_leases};
        return c;
    }
    if (stem == "extend") {
        Contract c = one({integer("visibility_ms", "30000", 1, kMaxTimeMs), lease(held)});
        c.open_tail = true;
        c.also_malformed.push_back({"30000"});
        c.also_malformed.back().insert(c.also_malformed.back().end(), too_many_leases.begin(),
                                       too_many_leases.end());
        return c;
    }
    if (stem == "nack") {
        Param delay = time_ms("delay_ms", "1000");
        delay.also_valid = {""};
        const Param mode = choice("mode", "retry", {"retry", "dead"});
        return Contract{.templates = {{lease(held), delay, any_bytes("error", "boom"), mode}}};
    }
    if (stem == "fetch") {
        return one({integer("max_count", "10", 1, kMaxBatch),
                    integer("visibility_ms", "30000", 1, kMaxTimeMs)});
    }
    if (stem == "push_lease") return one({integer("max_count", "1", 1, kMaxBatch)});
    if (stem == "cancel" || stem == "get") return one({id(p.scheduled_id)});
    if (stem == "reschedule") {
        Param at = time_ms("at_ms", "");
        at.also_valid = {""};
        Param at_given = time_ms("at_ms", "4102444800000");
        at_given.also_valid = {""};
        return Contract{.templates = {{id(p.scheduled_id), at, time_ms("delay_ms", "3600000")},
                                      {id(p.scheduled_id), at_given, time_ms("delay_ms", "0")}}};
    }
    if (stem == "dead_purge" || stem == "dead_requeue") {
        const Param limit = integer("limit", "1", 1, kMaxBatch);
        std::vector<std::string> too_many{std::to_string(kMaxBatch)};
        too_many.insert(too_many.end(), kMaxBatch + 1, p.dead_id);
        return Contract{.templates = {{limit, id(p.dead_id)}, {limit}},
                        .also_malformed = {too_many, {"1", p.dead_id, p.dead_id}}};
    }
    if (stem == "delete")
        return Contract{.keys = 17, .templates = {{choice("force", "0", {"0", "1"})}}};
    if (stem == "history_record" || stem == "push_get" || stem == "settings_get" ||
        stem == "stats") {
        return none();
    }
    if (stem == "push_read" || stem == "push_remove") return none(17);
    if (stem == "history_get") {
        return one({time_ms("since_ms", "0"), integer("limit", "360", 1, kMaxBatch)});
    }
    if (stem == "list") {
        const Param state = choice("state", "ready", {"scheduled", "ready", "in_flight", "dead"});
        const Param limit = integer("limit", "10", 1, kMaxBatch);
        Param no_score = time_ms("after_score", "");
        Param no_member{.label = "after_member", .kind = ArgKind::kMember, .valid = ""};
        Param score = time_ms("after_score", "0");
        Param member{.label = "after_member", .kind = ArgKind::kMember, .valid = "00000000000001"};
        return Contract{
            .templates = {{state, limit, no_score, no_member}, {state, limit, score, member}}};
    }
    if (stem == "push_set") return Contract{.keys = 17, .templates = {push_set_template()}};
    if (stem == "push_record") {
        return one({integer("status", "200", 0, 999), any_bytes("error", "")});
    }
    if (stem == "schedule_put") return one(schedule_put_template());
    if (stem == "schedule_claim") {
        const std::vector<std::string> head{
            p.schedule, "sa-hash", "0", "schedule:" + p.schedule + ":", "-1", "0"};
        std::vector<std::string> too_many = head;
        for (std::size_t i = 0; i <= kMaxBatch; ++i) too_many.push_back(std::to_string(1000 + i));
        std::vector<std::string> descending = head;
        descending.insert(descending.end(), {"2000", "1000"});
        std::vector<Param> without_instants{
            schedule_name(p.schedule, true), text("hash", "sa-hash", kScheduleTextMax),
            time_or_none("expected", "0"),   id_prefix("schedule:" + p.schedule + ":"),
            time_or_none("then", "-1"),      time_ms("missed", "0")};
        std::vector<Param> with_instant = without_instants;
        with_instant.push_back(time_ms("instant", "1000"));
        return Contract{.templates = {with_instant, without_instants},
                        .also_malformed = {too_many, descending}};
    }
    if (stem == "schedule_get") {
        Param cursor{.label = "cursor", .kind = ArgKind::kCursor, .valid = "0"};
        return Contract{
            .templates = {{choice("what", "one", {"one", "page"}), schedule_name(p.schedule, true)},
                          {choice("what", "page", {"one", "page"}), cursor,
                           integer("count", "10", 1, kMaxBatch)}}};
    }
    if (stem == "schedule_poll") return one({integer("limit", "10", 1, kMaxBatch)});
    if (stem == "schedule_stop") {
        return one({choice("mode", "pause", {"pause", "remove"}), schedule_name(p.schedule, true)});
    }
    if (stem == "schedule_trigger") {
        return one({schedule_name(p.schedule, true), id_prefix("schedule:" + p.schedule + ":")});
    }
    if (stem == "send") {
        Contract c = one(send_template());
        // A run that counts more messages than the batch may hold, each its own.
        std::vector<std::string> too_many{std::to_string(kMaxBatch + 1), "1", "", "0", "0", "0"};
        for (std::size_t i = 0; i <= kMaxBatch; ++i) {
            too_many.push_back("sa-many-" + std::to_string(i));
            too_many.push_back("p");
        }
        c.also_malformed = {too_many};
        return c;
    }
    if (stem == "settings") return Contract{.templates = settings_templates()};
    if (stem == "timeline") {
        return one({integer("width_ms", "1000", 1, kMaxTimeMs),
                    integer("count", "10", 1, kMaxTimelineBuckets)});
    }
    return std::nullopt;
}

}  // namespace delayq::test::script_args
