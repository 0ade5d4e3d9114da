// The rows of the bad-input catalogue: every input class of issue 5's list, through the library
// and the command line. Which inputs are valid follows src/validate.cpp and docs/design.md
// section 8 (limits).
#include "fault/limits/bad_input_catalogue.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <thread>

namespace delayq::test {
namespace {

using namespace std::chrono_literals;
using SysTime = std::chrono::system_clock::time_point;

// 9999-12-31T23:59:59.999Z in unix ms: the latest due time delayq accepts (design.md, limits).
constexpr std::int64_t kMaxTimeMs = 253'402'300'799'999;
// system_clock counts nanoseconds in libstdc++: SendOptions::at cannot go past 2262-04-11, so
// the library's "after the year 9999" check is unreachable here and the CLI must refuse such times.
constexpr std::int64_t kClockMaxMs =
    std::chrono::duration_cast<std::chrono::milliseconds>(SysTime::duration::max()).count();
constexpr std::size_t kMiB = std::size_t{1024} * 1024;

SysTime at_ms(std::int64_t ms) { return SysTime(std::chrono::milliseconds(ms)); }
std::int64_t ms_of(TimePoint t) { return t.time_since_epoch().count(); }

// Every byte value, twice, with runs of NULs: a payload no text handling survives by accident.
std::string all_bytes() {
    std::string bytes;
    for (int round = 0; round < 2; ++round) {
        for (int b = 0; b < 256; ++b) bytes.push_back(static_cast<char>(b));
        bytes.append(3, '\0');
    }
    return bytes;
}

Delivery lease(Queue& q, Duration visibility = 30s) {
    const auto end = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < end) {
        FetchResult r = q.fetch(1, visibility);
        if (!r.deliveries.empty()) return r.deliveries.front();
        std::this_thread::sleep_for(5ms);
    }
    throw std::runtime_error("nothing to lease in queue " + q.name());
}

// Sends, reads back, leases and acks one message: "works exactly" for a valid send.
void round_trip(Queue& q, const std::string& payload, const SendOptions& options = {}) {
    const SendResult sent = q.send(payload, options);
    EXPECT_FALSE(sent.duplicate);
    if (!options.id.empty()) {
        EXPECT_EQ(sent.id, options.id);
    }
    const auto info = q.get(sent.id);
    ASSERT_TRUE(info.has_value());
    EXPECT_EQ(info->payload, payload);
    const Delivery d = lease(q);
    EXPECT_EQ(d.id(), sent.id);
    EXPECT_EQ(d.payload(), payload);
    EXPECT_EQ(q.ack(d), AckResult::kAcked);
    EXPECT_FALSE(q.get(sent.id).has_value());
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// A CLI row that sent one message: it must hold exactly `payload`.
std::function<void(CatalogueEnv&, const CliResult&)> stored_payload(std::string payload) {
    return [payload](CatalogueEnv& e, const CliResult& r) {
        const auto info = e.q.get(first_line(r.out));
        ASSERT_TRUE(info.has_value()) << r.out;
        EXPECT_EQ(info->payload, payload);
    };
}

std::function<void(CatalogueEnv&, const CliResult&)> stored_due(std::int64_t due_ms) {
    return [due_ms](CatalogueEnv& e, const CliResult& r) {
        const auto info = e.q.get(first_line(r.out));
        ASSERT_TRUE(info.has_value()) << r.out;
        EXPECT_EQ(ms_of(info->due), due_ms);
    };
}

void send_scheduled(CatalogueEnv& e) { e.id = e.q.send("r", {.delay = 1h, .id = "r"}).id; }
void send_and_lease(CatalogueEnv& e) {
    e.id = e.q.send("n").id;
    e.delivery = lease(e.q);
}
void send_ready(CatalogueEnv& e) { e.id = e.q.send("v").id; }

using Rows = std::vector<CatalogueCase>;

void payload_rows(Rows& rows) {
    const std::string bytes = all_bytes();
    rows.push_back({"payload",
                    "empty",
                    Verdict::kValid,
                    "",
                    {},
                    [](CatalogueEnv& e) {
                        round_trip(e.q, "");
                        const std::vector<Message> batch{{"", {}}, {"", {.id = "empty-2"}}};
                        const auto sent = e.q.send_batch(batch);
                        ASSERT_EQ(sent.size(), 2U);
                        EXPECT_EQ(e.q.get(sent[0].id)->payload, "");
                        EXPECT_EQ(e.q.get("empty-2")->payload, "");
                    },
                    {"send", "@Q", ""},
                    "",
                    "",
                    stored_payload("")});
    rows.push_back({"payload",
                    "empty, from stdin",
                    Verdict::kValid,
                    "",
                    {},
                    {},
                    {"send", "@Q"},
                    "",
                    "",
                    stored_payload("")});
    rows.push_back({"payload",
                    "every byte value with NULs",
                    Verdict::kValid,
                    "",
                    {},
                    [bytes](CatalogueEnv& e) {
                        round_trip(e.q, bytes);
                        // Listing and a batch carry it unchanged too.
                        const std::vector<Message> batch{{bytes, {.delay = 1h}}};
                        const std::string id = e.q.send_batch(batch).at(0).id;
                        const auto listed = e.q.list(State::kScheduled);
                        ASSERT_EQ(listed.size(), 1U);
                        EXPECT_EQ(listed[0].id, id);
                        EXPECT_EQ(listed[0].payload, bytes);
                    },
                    {"send", "@Q"},
                    bytes,
                    "",
                    stored_payload(bytes)});
    rows.push_back({"payload",
                    "every byte value, --file payload_base64",
                    Verdict::kValid,
                    "",
                    {},
                    {},
                    {"send", "@Q", "--file", "-"},
                    "{\"payload_base64\": \"AAEC/38A//4=\", \"id\": \"b64\"}\n",
                    "",
                    [](CatalogueEnv& e, const CliResult&) {
                        const auto info = e.q.get("b64");
                        ASSERT_TRUE(info.has_value());
                        EXPECT_EQ(info->payload,
                                  std::string("\x00\x01\x02\xff\x7f\x00\xff\xfe", 8));
                    }});
    rows.push_back({"payload",
                    "exactly at a 1000-byte max_payload_bytes",
                    Verdict::kValid,
                    "",
                    {},
                    [](CatalogueEnv& e) {
                        Queue small = e.client.queue(e.q.name(), {.max_payload_bytes = 1000});
                        round_trip(small, std::string(1000, 'p'));
                    }});
    rows.push_back(
        {"payload",
         "one byte over a 1000-byte max_payload_bytes",
         Verdict::kInvalid,
         "payload is 1001 bytes, over the limit of 1000",
         {},
         [](CatalogueEnv& e) {
             e.client.queue(e.q.name(), {.max_payload_bytes = 1000}).send(std::string(1001, 'p'));
         }});
    rows.push_back({"payload",
                    "exactly at the default limit (1 MiB)",
                    Verdict::kValid,
                    "",
                    {},
                    [](CatalogueEnv& e) { round_trip(e.q, std::string(kMiB, '\xff')); },
                    {"send", "@Q"},
                    std::string(kMiB, '\xff'),
                    "",
                    stored_payload(std::string(kMiB, '\xff'))});
    rows.push_back({"payload",
                    "one byte over the default limit",
                    Verdict::kInvalid,
                    "payload is 1048577 bytes, over the limit of 1048576",
                    {},
                    [](CatalogueEnv& e) { e.q.send(std::string(kMiB + 1, 'p')); },
                    {"send", "@Q"},
                    std::string(kMiB + 1, 'p')});
    rows.push_back(
        {"payload",
         "one over-limit message in a batch of good ones",
         Verdict::kInvalid,
         "over the limit",
         {},
         [](CatalogueEnv& e) {
             const std::vector<Message> batch{
                 {"ok", {}}, {std::string(kMiB + 1, 'p'), {}}, {"ok", {}}};
             e.q.send_batch(batch);
         },
         {"send", "@Q", "--file", "-"},
         "{\"payload\": \"ok\"}\n{\"payload\": \"" + std::string(kMiB + 1, 'p') + "\"}\n",
         "line 2: payload is 1048577 bytes"});
    rows.push_back({"payload",
                    "max_payload_bytes above Redis's 512 MiB string limit",
                    Verdict::kInvalid,
                    "max_payload_bytes must be at most 512 MiB",
                    {},
                    [](CatalogueEnv& e) {
                        e.client.queue(e.q.name(), {.max_payload_bytes = 512 * kMiB + 1});
                    }});
}

void delay_rows(Rows& rows) {
    rows.push_back({"delay",
                    "zero",
                    Verdict::kValid,
                    "",
                    {},
                    [](CatalogueEnv& e) { round_trip(e.q, "x", {.delay = 0ms}); },
                    {"send", "@Q", "x", "--delay", "0"},
                    "",
                    "",
                    [](CatalogueEnv& e, const CliResult& r) {
                        EXPECT_EQ(e.q.get(first_line(r.out))->state, State::kReady);
                    }});
    rows.push_back({"delay",
                    "negative",
                    Verdict::kInvalid,
                    "delay must not be negative",
                    {},
                    [](CatalogueEnv& e) { e.q.send("x", {.delay = -1ms}); },
                    {"send", "@Q", "x", "--delay", "-5s"},
                    "",
                    "must not be negative"});
    rows.push_back({"delay",
                    "most negative (Duration::min)",
                    Verdict::kInvalid,
                    "delay must not be negative",
                    {},
                    [](CatalogueEnv& e) { e.q.send("x", {.delay = Duration::min()}); },
                    {"send", "@Q", "x", "--delay=-9223372036854775808ms"},
                    "",
                    "must not be negative"});
    // Duration is integral milliseconds: NaN and infinity exist only as text, on the CLI.
    rows.push_back({"delay",
                    "NaN (CLI only: Duration is integral)",
                    Verdict::kInvalid,
                    "",
                    {},
                    {},
                    {"send", "@Q", "x", "--delay", "nan"},
                    "",
                    "invalid duration \"nan\""});
    rows.push_back({"delay",
                    "NaN in JSON lines",
                    Verdict::kInvalid,
                    "",
                    {},
                    {},
                    {"send", "@Q", "--file", "-"},
                    "{\"payload\": \"x\", \"delay\": NaN}\n",
                    "line 1: invalid JSON"});
    rows.push_back({"delay",
                    "infinite (Duration::max; CLI: inf)",
                    Verdict::kInvalid,
                    "delay is absurdly long",
                    {},
                    [](CatalogueEnv& e) { e.q.send("x", {.delay = Duration::max()}); },
                    {"send", "@Q", "x", "--delay", "inf"},
                    "",
                    "invalid duration \"inf\""});
    rows.push_back({"delay",
                    "infinite in JSON lines (1e999)",
                    Verdict::kInvalid,
                    "",
                    {},
                    {},
                    {"send", "@Q", "--file", "-"},
                    "{\"payload\": \"x\", \"delay\": 1e999}\n",
                    "line 1: invalid JSON"});
    rows.push_back({"delay",
                    "overflowing int64 milliseconds",
                    Verdict::kInvalid,
                    "delay is absurdly long",
                    {},
                    [](CatalogueEnv& e) {
                        e.q.send("x", {.delay = std::chrono::duration_cast<Duration>(
                                           std::chrono::hours(24LL * 365 * 20'000))});
                    },
                    {"send", "@Q", "x", "--delay", "99999999999999999999ms"},
                    "",
                    "is too long"});
    rows.push_back({"delay",
                    "overflowing once multiplied by its unit",
                    Verdict::kInvalid,
                    "",
                    {},
                    {},
                    {"send", "@Q", "x", "--delay", "106751991167301d"},
                    "",
                    "is too long"});
    rows.push_back({"delay",
                    "one ms over the largest delay",
                    Verdict::kInvalid,
                    "delay is absurdly long",
                    {},
                    [](CatalogueEnv& e) { e.q.send("x", {.delay = Duration(kMaxTimeMs + 1)}); },
                    {"send", "@Q", "x", "--delay", std::to_string(kMaxTimeMs + 1) + "ms"},
                    "",
                    "is too long"});
    // Under the client's bound but past 9999-12-31 once added to the server's now.
    rows.push_back({"delay",
                    "lands after the year 9999",
                    Verdict::kInvalid,
                    "9999",
                    {},
                    [](CatalogueEnv& e) { e.q.send("x", {.delay = Duration(kMaxTimeMs - 1000)}); },
                    {"send", "@Q", "x", "--delay", std::to_string(kMaxTimeMs - 1000) + "ms"},
                    "",
                    "9999"});
    rows.push_back({"delay",
                    "absurdly far but before 9999 (7,900 years)",
                    Verdict::kValid,
                    "",
                    {},
                    [](CatalogueEnv& e) {
                        const std::int64_t before = e.server.time_ms();
                        const SendResult s =
                            e.q.send("x", {.delay = Duration(250'560'000'000'000)});
                        const std::int64_t after = e.server.time_ms();
                        EXPECT_GE(ms_of(s.due), before + 250'560'000'000'000);
                        EXPECT_LE(ms_of(s.due), after + 250'560'000'000'000);
                        EXPECT_EQ(e.q.get(s.id)->state, State::kScheduled);
                        EXPECT_EQ(e.q.cancel(s.id), CancelResult::kCancelled);
                    },
                    {"send", "@Q", "x", "--delay", "2900000d"},
                    "",
                    "",
                    [](CatalogueEnv& e, const CliResult& r) {
                        const auto info = e.q.get(first_line(r.out));
                        ASSERT_TRUE(info.has_value());
                        EXPECT_EQ(info->state, State::kScheduled);
                        EXPECT_GT(ms_of(info->due), 250'560'000'000'000);
                    }});
}

void at_rows(Rows& rows) {
    rows.push_back({"at",
                    "one ms before 1970",
                    Verdict::kInvalid,
                    "due time is before 1970",
                    {},
                    [](CatalogueEnv& e) { e.q.send("x", {.at = at_ms(-1)}); },
                    {"send", "@Q", "x", "--at", "-1"},
                    "",
                    "invalid time"});
    rows.push_back({"at",
                    "earliest representable (time_point::min)",
                    Verdict::kInvalid,
                    "due time is before 1970",
                    {},
                    [](CatalogueEnv& e) { e.q.send("x", {.at = SysTime::min()}); },
                    {"send", "@Q", "x", "--at", "0000-01-01T00:00:00Z"},
                    "",
                    "before 1970"});
    rows.push_back({"at",
                    "the epoch (long past: ready at once)",
                    Verdict::kValid,
                    "",
                    {},
                    [](CatalogueEnv& e) {
                        round_trip(e.q, "x", {.at = at_ms(0)});
                        EXPECT_EQ(ms_of(e.q.send("y", {.at = at_ms(0)}).due), 0);
                    },
                    {"send", "@Q", "x", "--at", "1970-01-01T00:00:00Z"},
                    "",
                    "",
                    stored_due(0)});
    rows.push_back({"at",
                    "the latest time system_clock holds (2262-04-11T23:47:16.854Z)",
                    Verdict::kValid,
                    "",
                    {},
                    [](CatalogueEnv& e) {
                        const SendResult s = e.q.send("x", {.at = SysTime::max()});
                        EXPECT_EQ(ms_of(s.due), kClockMaxMs);
                        EXPECT_EQ(ms_of(e.q.get(s.id)->due), kClockMaxMs);
                    },
                    {"send", "@Q", "x", "--at", "2262-04-11T23:47:16.854Z"},
                    "",
                    "",
                    stored_due(kClockMaxMs)});
    rows.push_back({"at",
                    "after system_clock's range (CLI only)",
                    Verdict::kInvalid,
                    "",
                    {},
                    {},
                    {"send", "@Q", "x", "--at", "9999-12-31T23:59:59.999Z"},
                    "",
                    "the latest time this system's clock can represent"});
    rows.push_back({"at",
                    "one ms after 9999 (CLI only)",
                    Verdict::kInvalid,
                    "",
                    {},
                    {},
                    {"send", "@Q", "x", "--at", std::to_string(kMaxTimeMs + 1)},
                    "",
                    "after the year 9999"});
    rows.push_back({"at",
                    "after 9999 through a time-zone offset",
                    Verdict::kInvalid,
                    "",
                    {},
                    {},
                    {"send", "@Q", "x", "--at", "9999-12-31T23:59:59.999-01:00"},
                    "",
                    "after the year 9999"});
    rows.push_back({"at",
                    "overflowing int64 (CLI only)",
                    Verdict::kInvalid,
                    "",
                    {},
                    {},
                    {"send", "@Q", "x", "--at", "99999999999999999999"},
                    "",
                    "after the year 9999"});
    rows.push_back({"at",
                    "NaN / infinite (CLI only)",
                    Verdict::kInvalid,
                    "",
                    {},
                    {},
                    {"send", "@Q", "x", "--at", "inf"},
                    "",
                    "invalid time \"inf\""});
    rows.push_back({"at",
                    "both delay and at",
                    Verdict::kInvalid,
                    "must not set both delay and at",
                    {},
                    [](CatalogueEnv& e) { e.q.send("x", {.delay = 1s, .at = at_ms(0)}); },
                    {"send", "@Q", "x", "--delay", "1s", "--at", "0"},
                    "",
                    "excludes"});
}

void expire_rows(Rows& rows) {
    rows.push_back({"expire_after",
                    "negative",
                    Verdict::kInvalid,
                    "expire_after must not be negative",
                    {},
                    [](CatalogueEnv& e) { e.q.send("x", {.expire_after = -1ms}); },
                    {"send", "@Q", "x", "--expire-after", "-1s"},
                    "",
                    "must not be negative"});
    rows.push_back({"expire_after",
                    "infinite (Duration::max)",
                    Verdict::kInvalid,
                    "expire_after is absurdly long",
                    {},
                    [](CatalogueEnv& e) { e.q.send("x", {.expire_after = Duration::max()}); },
                    {"send", "@Q", "x", "--expire-after", "infinity"},
                    "",
                    "invalid duration"});
    rows.push_back({"expire_after",
                    "equal to the delay",
                    Verdict::kInvalid,
                    "expire_after must be longer than the delay",
                    {},
                    [](CatalogueEnv& e) { e.q.send("x", {.delay = 5s, .expire_after = 5s}); },
                    {"send", "@Q", "x", "--delay", "5s", "--expire-after", "5s"},
                    "",
                    "must be longer than the delay"});
    // Only the server knows how far away an absolute due time is.
    rows.push_back({"expire_after",
                    "before an absolute due time",
                    Verdict::kInvalid,
                    "expiry before due time",
                    {},
                    [](CatalogueEnv& e) {
                        e.q.send("x",
                                 {.at = at_ms(e.server.time_ms() + 3'600'000), .expire_after = 1s});
                    },
                    {"send", "@Q", "x", "--at", "2100-01-01T00:00:00Z", "--expire-after", "1s"},
                    "",
                    "expiry before due time"});
    rows.push_back({"expire_after",
                    "the largest (expiry past 9999)",
                    Verdict::kValid,
                    "",
                    {},
                    [](CatalogueEnv& e) {
                        const SendResult s = e.q.send("x", {.expire_after = Duration(kMaxTimeMs)});
                        const auto info = e.q.get(s.id);
                        ASSERT_TRUE(info.has_value());
                        ASSERT_TRUE(info->expire_at.has_value());
                        EXPECT_EQ(ms_of(*info->expire_at) - ms_of(s.due), kMaxTimeMs);
                        const Delivery d = lease(e.q);
                        EXPECT_EQ(e.q.ack(d), AckResult::kAcked);
                    }});
}

void reschedule_rows(Rows& rows) {
    rows.push_back({"reschedule",
                    "negative delay",
                    Verdict::kInvalid,
                    "delay must not be negative",
                    send_scheduled,
                    [](CatalogueEnv& e) { e.q.reschedule(e.id, -1ms); },
                    {"reschedule", "@Q", "@ID", "--delay", "-1s"},
                    "",
                    "must not be negative"});
    rows.push_back({"reschedule",
                    "infinite delay (CLI: NaN)",
                    Verdict::kInvalid,
                    "delay is absurdly long",
                    send_scheduled,
                    [](CatalogueEnv& e) { e.q.reschedule(e.id, Duration::max()); },
                    {"reschedule", "@Q", "@ID", "--delay", "nan"},
                    "",
                    "invalid duration"});
    rows.push_back(
        {"reschedule",
         "delay landing after 9999",
         Verdict::kInvalid,
         "9999",
         send_scheduled,
         [](CatalogueEnv& e) { e.q.reschedule(e.id, Duration(kMaxTimeMs - 1000)); },
         {"reschedule", "@Q", "@ID", "--delay", std::to_string(kMaxTimeMs - 1000) + "ms"},
         "",
         "9999"});
    rows.push_back({"reschedule",
                    "at before 1970",
                    Verdict::kInvalid,
                    "due time is before 1970",
                    send_scheduled,
                    [](CatalogueEnv& e) { e.q.reschedule_at(e.id, SysTime::min()); },
                    {"reschedule", "@Q", "@ID", "--at", "-1"},
                    "",
                    "invalid time"});
    rows.push_back({"reschedule",
                    "at after 9999 (CLI only)",
                    Verdict::kInvalid,
                    "",
                    send_scheduled,
                    {},
                    {"reschedule", "@Q", "@ID", "--at", std::to_string(kMaxTimeMs + 1)},
                    "",
                    "after the year 9999"});
    rows.push_back({"reschedule",
                    "at the latest time system_clock holds",
                    Verdict::kValid,
                    "",
                    send_scheduled,
                    [](CatalogueEnv& e) {
                        const RescheduleResult r = e.q.reschedule_at(e.id, SysTime::max());
                        EXPECT_EQ(r.status, RescheduleStatus::kRescheduled);
                        EXPECT_EQ(ms_of(r.due), kClockMaxMs);
                        EXPECT_EQ(ms_of(e.q.get(e.id)->due), kClockMaxMs);
                    },
                    {"reschedule", "@Q", "@ID", "--at", std::to_string(kClockMaxMs)},
                    "",
                    "",
                    [](CatalogueEnv& e, const CliResult&) {
                        EXPECT_EQ(ms_of(e.q.get(e.id)->due), kClockMaxMs);
                    }});
}

void nack_rows(Rows& rows) {
    // The command line has no nack with a delay (a consume handler's failure uses the backoff).
    rows.push_back({"nack", "negative delay", Verdict::kInvalid, "nack delay must not be negative",
                    send_and_lease,
                    [](CatalogueEnv& e) { e.q.nack(*e.delivery, Nack{.delay = -1ms}); }});
    rows.push_back(
        {"nack", "infinite delay", Verdict::kInvalid, "nack delay is absurdly long", send_and_lease,
         [](CatalogueEnv& e) { e.q.nack(*e.delivery, Nack{.delay = Duration::max()}); }});
    rows.push_back({"nack", "the largest delay: capped at 9999-12-31", Verdict::kValid, "",
                    send_and_lease, [](CatalogueEnv& e) {
                        const NackResult r =
                            e.q.nack(*e.delivery, Nack{.delay = Duration(kMaxTimeMs)});
                        EXPECT_EQ(r.status, NackStatus::kRetrying);
                        EXPECT_EQ(ms_of(r.due), kMaxTimeMs);
                        EXPECT_EQ(e.q.get(e.id)->state, State::kScheduled);
                    }});
    rows.push_back({"nack", "error text of 100 kB with every byte value: cut to 4096 bytes",
                    Verdict::kValid, "", send_and_lease, [](CatalogueEnv& e) {
                        std::string text;
                        while (text.size() < 100'000) text += all_bytes();
                        const NackResult r =
                            e.q.nack(*e.delivery, Nack{.delay = 1h, .error = text});
                        EXPECT_EQ(r.status, NackStatus::kRetrying);
                        EXPECT_EQ(e.q.get(e.id)->last_error, text.substr(0, 4096));
                    }});
}

void visibility_rows(Rows& rows) {
    rows.push_back({"visibility",
                    "zero (fetch)",
                    Verdict::kInvalid,
                    "visibility timeout must be at least 1 ms",
                    send_ready,
                    [](CatalogueEnv& e) { e.q.fetch(1, 0ms); },
                    {"consume", "@Q", "--max", "1", "--visibility", "0"},
                    "",
                    "visibility"});
    rows.push_back({"visibility",
                    "negative (fetch)",
                    Verdict::kInvalid,
                    "visibility timeout must be at least 1 ms",
                    send_ready,
                    [](CatalogueEnv& e) { e.q.fetch(1, -30s); },
                    {"consume", "@Q", "--max", "1", "--visibility", "-30s"},
                    "",
                    "must not be negative"});
    rows.push_back({"visibility",
                    "infinite (fetch)",
                    Verdict::kInvalid,
                    "visibility timeout is absurdly long",
                    send_ready,
                    [](CatalogueEnv& e) { e.q.fetch(1, Duration::max()); },
                    {"consume", "@Q", "--max", "1", "--visibility", "99999999999999d"},
                    "",
                    "is too long"});
    rows.push_back({"visibility",
                    "NaN (CLI only)",
                    Verdict::kInvalid,
                    "",
                    send_ready,
                    {},
                    {"consume", "@Q", "--max", "1", "--visibility", "nan"},
                    "",
                    "invalid duration"});
    rows.push_back({"visibility", "the largest: the lease ends after 9999", Verdict::kValid, "",
                    send_ready, [](CatalogueEnv& e) {
                        const Delivery d = lease(e.q, Duration(kMaxTimeMs));
                        const auto info = e.q.get(d.id());
                        ASSERT_TRUE(info && info->lease_deadline);
                        EXPECT_EQ(ms_of(*info->lease_deadline) - ms_of(d.delivered_at()),
                                  kMaxTimeMs);
                        EXPECT_EQ(e.q.ack(d), AckResult::kAcked);
                    }});
    rows.push_back({"visibility", "zero (extend)", Verdict::kInvalid,
                    "visibility timeout must be at least 1 ms", send_and_lease,
                    [](CatalogueEnv& e) { e.q.extend(*e.delivery, 0ms); }});
    rows.push_back({"visibility", "infinite (extend)", Verdict::kInvalid,
                    "visibility timeout is absurdly long", send_and_lease,
                    [](CatalogueEnv& e) { e.q.extend(*e.delivery, Duration::max()); }});
    rows.push_back({"consumer", "zero visibility timeout", Verdict::kInvalid,
                    "visibility timeout must be at least 1 ms", send_ready, [](CatalogueEnv& e) {
                        Consumer c(e.q, [](const Delivery&) -> Outcome { return Ack{}; },
                                   {.visibility_timeout = 0ms});
                        c.start();
                        c.stop();
                        c.wait();
                    }});
    rows.push_back({"consumer", "NaN backoff multiplier", Verdict::kInvalid, "backoff needs",
                    send_ready, [](CatalogueEnv& e) {
                        ConsumerOptions o;
                        o.backoff.multiplier = std::numeric_limits<double>::quiet_NaN();
                        Consumer c(
                            e.q, [](const Delivery&) -> Outcome { return Ack{}; }, o);
                        c.start();
                        c.stop();
                        c.wait();
                    }});
    // A Consumer times its work with steady_clock (nanoseconds): durations it adds to "now" must
    // stay far below that clock's range, not merely below the year 9999.
    const auto consumer_with = [](ConsumerOptions o) {
        return [o](CatalogueEnv& e) {
            Consumer c(
                e.q, [](const Delivery&) -> Outcome { return Ack{}; }, o);
            c.start();
            c.stop();
            c.wait();
        };
    };
    rows.push_back({"consumer",
                    "visibility timeout at the fetch limit",
                    Verdict::kInvalid,
                    "visibility timeout is absurdly long for a consumer",
                    send_ready,
                    consumer_with({.visibility_timeout = Duration(kMaxTimeMs)}),
                    {"consume", "@Q", "--max", "1", "--visibility", "2900000d"},
                    "",
                    "visibility timeout is absurdly long for a consumer"});
    rows.push_back({"consumer", "visibility timeout of 100 years and one ms", Verdict::kInvalid,
                    "visibility timeout is absurdly long for a consumer", send_ready,
                    consumer_with({.visibility_timeout = Duration(3'153'600'000'001)})});
    rows.push_back({"consumer", "infinite idle_check", Verdict::kInvalid, "idle_check", send_ready,
                    consumer_with({.idle_check = Duration::max()})});
    rows.push_back({"consumer", "shutdown_timeout at the year-9999 bound", Verdict::kInvalid,
                    "shutdown_timeout", send_ready,
                    consumer_with({.shutdown_timeout = Duration(kMaxTimeMs)})});
    rows.push_back({"consumer", "infinite backoff max", Verdict::kInvalid, "backoff", send_ready,
                    consumer_with({.backoff = {.initial = 1s, .max = Duration::max()}})});
    rows.push_back(
        {"consumer", "infinite backoff multiplier", Verdict::kValid, "", {}, [](CatalogueEnv&) {
             const Backoff b{.initial = 1s, .max = 1h, .multiplier = HUGE_VAL, .jitter = 0};
             EXPECT_EQ(b.delay_for(1, 0.5), 1s);
             EXPECT_EQ(b.delay_for(2, 0.5), 1h);
         }});
    rows.push_back({"fetch",
                    "count 0 and 1001",
                    Verdict::kInvalid,
                    "fetch takes 1 to 1000 messages",
                    send_ready,
                    [](CatalogueEnv& e) {
                        EXPECT_THROW(e.q.fetch(0, 30s), InvalidArgument);
                        e.q.fetch(1001, 30s);
                    },
                    {"consume", "@Q", "--max", "0"},
                    "",
                    "max"});
}

void attempts_rows(Rows& rows) {
    rows.push_back(
        {"max_attempts", "0: the queue's default", Verdict::kValid, "", {}, [](CatalogueEnv& e) {
             Queue q = e.client.queue(e.q.name(), {.default_max_attempts = 3});
             const SendResult s = q.send("x", {.max_attempts = 0});
             EXPECT_EQ(q.get(s.id)->max_attempts, 3);
         }});
    // The command line takes an explicit count only: leaving the option out is the default.
    rows.push_back({"max_attempts",
                    "0 on the command line",
                    Verdict::kInvalid,
                    "",
                    {},
                    {},
                    {"send", "@Q", "x", "--max-attempts", "0"},
                    "",
                    "max-attempts"});
    rows.push_back({"max_attempts",
                    "negative",
                    Verdict::kInvalid,
                    "max_attempts must be from 1 to 1000000",
                    {},
                    [](CatalogueEnv& e) { e.q.send("x", {.max_attempts = -1}); },
                    {"send", "@Q", "x", "--max-attempts", "-1"},
                    "",
                    "max-attempts"});
    rows.push_back({"max_attempts",
                    "INT_MIN",
                    Verdict::kInvalid,
                    "max_attempts must be from 1 to 1000000",
                    {},
                    [](CatalogueEnv& e) { e.q.send("x", {.max_attempts = INT_MIN}); },
                    {"send", "@Q", "x", "--max-attempts", "-2147483648"},
                    "",
                    "max-attempts"});
    rows.push_back({"max_attempts",
                    "1: dead-lettered after one failure",
                    Verdict::kValid,
                    "",
                    {},
                    [](CatalogueEnv& e) {
                        const SendResult s = e.q.send("x", {.max_attempts = 1});
                        const NackResult r = e.q.nack(lease(e.q), Nack{.delay = 0ms});
                        EXPECT_EQ(r.status, NackStatus::kDeadLettered);
                        EXPECT_EQ(r.dead_reason, "attempts exhausted");
                        EXPECT_EQ(e.q.get(s.id)->state, State::kDead);
                    },
                    {"send", "@Q", "x", "--max-attempts", "1"},
                    "",
                    "",
                    [](CatalogueEnv& e, const CliResult& r) {
                        EXPECT_EQ(e.q.get(first_line(r.out))->max_attempts, 1);
                    }});
    rows.push_back({"max_attempts",
                    "1000000 (the limit)",
                    Verdict::kValid,
                    "",
                    {},
                    [](CatalogueEnv& e) {
                        const SendResult s = e.q.send("x", {.max_attempts = 1'000'000});
                        EXPECT_EQ(e.q.get(s.id)->max_attempts, 1'000'000);
                    },
                    {"send", "@Q", "x", "--max-attempts", "1000000"},
                    "",
                    "",
                    [](CatalogueEnv& e, const CliResult& r) {
                        EXPECT_EQ(e.q.get(first_line(r.out))->max_attempts, 1'000'000);
                    }});
    rows.push_back({"max_attempts",
                    "1000001",
                    Verdict::kInvalid,
                    "max_attempts must be from 1 to 1000000",
                    {},
                    [](CatalogueEnv& e) { e.q.send("x", {.max_attempts = 1'000'001}); },
                    {"send", "@Q", "x", "--max-attempts", "1000001"},
                    "",
                    "max-attempts"});
    rows.push_back({"max_attempts",
                    "INT_MAX; CLI: past int",
                    Verdict::kInvalid,
                    "max_attempts must be from 1 to 1000000",
                    {},
                    [](CatalogueEnv& e) { e.q.send("x", {.max_attempts = INT_MAX}); },
                    {"send", "@Q", "x", "--max-attempts", "99999999999999999999"},
                    "",
                    "max-attempts"});
    rows.push_back({"max_attempts",
                    "NaN / fractional (CLI only)",
                    Verdict::kInvalid,
                    "",
                    {},
                    {},
                    {"send", "@Q", "x", "--max-attempts", "nan"},
                    "",
                    "max-attempts"});
    rows.push_back({"max_attempts",
                    "0 in JSON lines",
                    Verdict::kInvalid,
                    "",
                    {},
                    {},
                    {"send", "@Q", "--file", "-"},
                    "{\"payload\": \"x\", \"max_attempts\": 0}\n",
                    "\"max_attempts\" must be an integer from 1 to 1000000"});
    rows.push_back(
        {"max_attempts",
         "queue default 0",
         Verdict::kInvalid,
         "default_max_attempts must be from 1 to 1000000",
         {},
         [](CatalogueEnv& e) { e.client.queue(e.q.name(), {.default_max_attempts = 0}); }});
}

void batch_rows(Rows& rows) {
    rows.push_back({"batch",
                    "empty",
                    Verdict::kValid,
                    "",
                    {},
                    [](CatalogueEnv& e) {
                        const auto before = e.server.dbsize();
                        EXPECT_TRUE(e.q.send_batch({}).empty());
                        EXPECT_EQ(e.server.dbsize(), before);
                    },
                    {"send", "@Q", "--file", "-"},
                    "\n\n",
                    "",
                    [](CatalogueEnv& e, const CliResult& r) {
                        EXPECT_EQ(r.out, "sent 0 messages in 0 batches: 0 new, 0 duplicates\n");
                        EXPECT_EQ(e.q.stats().totals.sent, 0U);
                    }});
    rows.push_back(
        {"batch", "1000 messages (the limit)", Verdict::kValid, "", {}, [](CatalogueEnv& e) {
             std::vector<Message> batch;
             for (int i = 0; i < 1000; ++i) batch.push_back({std::to_string(i), {}});
             const auto sent = e.q.send_batch(batch);
             ASSERT_EQ(sent.size(), 1000U);
             const auto first = lease(e.q);
             EXPECT_EQ(first.id(), sent[0].id);
             EXPECT_EQ(first.payload(), "0");
             EXPECT_EQ(e.q.stats().totals.sent, 1000U);
         }});
    rows.push_back({"batch",
                    "1001 messages",
                    Verdict::kInvalid,
                    "a batch holds 1 to 1000 messages",
                    {},
                    [](CatalogueEnv& e) {
                        const std::vector<Message> batch(1001, Message{"x", {}});
                        e.q.send_batch(batch);
                    }});
    rows.push_back({"batch",
                    "one bad delay among good messages",
                    Verdict::kInvalid,
                    "delay must not be negative",
                    {},
                    [](CatalogueEnv& e) {
                        const std::vector<Message> batch{
                            {"a", {}}, {"b", {.delay = -1ms}}, {"c", {.id = "c"}}};
                        e.q.send_batch(batch);
                    },
                    {"send", "@Q", "--file", "-"},
                    [] {
                        std::string lines;
                        for (int i = 0; i < 1000; ++i) lines += "{\"payload\": \"ok\"}\n";
                        return lines + "{\"payload\": \"x\", \"delay\": \"-1s\"}\n";
                    }(),
                    "line 1001"});
    rows.push_back(
        {"batch",
         "an expiry before its due time among good messages",
         Verdict::kInvalid,
         "expiry before due time",
         {},
         [](CatalogueEnv& e) {
             const std::vector<Message> batch{
                 {"a", {}},
                 {"b", {.at = at_ms(e.server.time_ms() + 3'600'000), .expire_after = 1s}}};
             e.q.send_batch(batch);
         }});
}

// Queue names: 1..200 bytes of printable ASCII without braces or spaces.
void queue_name_rows(Rows& rows) {
    struct Name {
        std::string label;
        std::string name;
        std::string message;  // empty: valid
        bool on_cli = true;   // argv cannot carry a NUL
    };
    const std::string braces = "must not contain braces";
    const std::string ascii = "must contain only printable ASCII characters";
    const std::vector<Name> names = {
        {"braces", "{q}", braces},
        {"an opening brace", "a{b", braces},
        {"a closing brace", "a}b", braces},
        {"colons", "orders:eu:v2", ""},
        {"a space", "with space", "must not contain spaces"},
        {"a newline", "new\nline", ascii},
        {"a tab", "tab\there", ascii},
        {"a NUL", std::string("nul\0byte", 8), ascii, false},
        {"ESC and DEL", "esc\x1b\x7f", ascii},
        {"UTF-8", "caf\xc3\xa9", ascii},
        {"empty", "", "must not be empty"},
        {"200 bytes", std::string(200, 'q'), ""},
        {"201 bytes", std::string(201, 'q'), "is 201 bytes, over the limit of 200"},
        {"100000 bytes", std::string(100'000, 'q'), "is 100000 bytes, over the limit of 200"},
        {"punctuation", "~!@#$%^&*()[]|;'\"<>,?/.-_=+", ""},
    };
    for (const auto& n : names) {
        CatalogueCase c;
        c.topic = "queue name";
        c.what = n.label;
        c.verdict = n.message.empty() ? Verdict::kValid : Verdict::kInvalid;
        c.message = "queue name " + n.message;
        const std::string name = n.name;
        c.library = [name](CatalogueEnv& e) {
            Queue q = e.client.queue(name);
            round_trip(q, "x");
            EXPECT_EQ(e.server.zcard(queue_key(name, "pending")), 0);
        };
        if (n.on_cli) {
            c.cli = {"send", name, "x"};
            c.cli_message = c.message;
            c.cli_check = [name](CatalogueEnv& e, const CliResult& r) {
                const auto info = e.client.queue(name).get(first_line(r.out));
                ASSERT_TRUE(info.has_value()) << r.out;
                EXPECT_EQ(info->payload, "x");
            };
        }
        rows.push_back(std::move(c));
        // `delayq stats ""` lists every queue, like `delayq stats`: not a name to check.
        if (n.on_cli && !n.message.empty() && !name.empty()) {
            rows.push_back({"queue name",
                            n.label + " (stats)",
                            Verdict::kInvalid,
                            "",
                            {},
                            {},
                            {"stats", name},
                            "",
                            "queue name " + n.message});
        }
    }
}

// Message ids: 1..200 bytes of printable ASCII without braces; spaces and colons allowed. Every
// call that takes an id refuses a bad one.
void id_rows(Rows& rows) {
    struct Id {
        std::string label;
        std::string id;
        std::string message;  // empty: valid
        bool on_cli = true;
    };
    const std::string braces = "must not contain braces";
    const std::string ascii = "must contain only printable ASCII characters";
    const std::vector<Id> ids = {
        {"braces", "{x}", braces},
        {"an opening brace", "a{b", braces},
        {"colons", "user:42:order", ""},
        {"spaces", " with  spaces ", ""},
        {"a newline", "line\nbreak", ascii},
        {"a carriage return", "cr\r", ascii},
        {"a NUL", std::string("nul\0id", 6), ascii, false},
        {"a control character", "bell\x07", ascii},
        {"a byte >= 0x80", "id\xff", ascii},
        {"empty (where an id is needed)", "", "must not be empty"},
        {"200 bytes", std::string(200, 'i'), ""},
        {"201 bytes", std::string(201, 'i'), "is 201 bytes, over the limit of 200"},
        {"shaped like a generated id", "0000000000000a", ""},
    };
    for (const auto& i : ids) {
        const std::string id = i.id;
        const std::string message = "message id " + i.message;
        if (i.message.empty()) {
            rows.push_back({"id",
                            i.label,
                            Verdict::kValid,
                            "",
                            {},
                            [id](CatalogueEnv& e) {
                                round_trip(e.q, "x", {.id = id});
                                const SendResult s = e.q.send("y", {.delay = 1h, .id = id});
                                EXPECT_EQ(e.q.reschedule(id, 2h).status,
                                          RescheduleStatus::kRescheduled);
                                EXPECT_TRUE(e.q.send("z", {.id = id}).duplicate);
                                EXPECT_EQ(e.q.cancel(s.id), CancelResult::kCancelled);
                            },
                            {"send", "@Q", "x", "--id", id},
                            "",
                            "",
                            [id](CatalogueEnv& e, const CliResult& r) {
                                EXPECT_EQ(r.out, id + "\n");
                                EXPECT_EQ(e.q.get(id)->payload, "x");
                            }});
            continue;
        }
        using Op = std::function<void(Queue&, const std::string&)>;
        const std::vector<std::pair<std::string, Op>> ops = {
            {"send", [](Queue& q, const std::string& x) { q.send("x", {.id = x}); }},
            {"send_batch",
             [](Queue& q, const std::string& x) {
                 const std::vector<Message> batch{{"ok", {}}, {"x", {.id = x}}};
                 q.send_batch(batch);
             }},
            {"cancel", [](Queue& q, const std::string& x) { q.cancel(x); }},
            {"reschedule", [](Queue& q, const std::string& x) { q.reschedule(x, 1s); }},
            {"get", [](Queue& q, const std::string& x) { q.get(x); }},
            {"requeue_dead",
             [](Queue& q, const std::string& x) {
                 const std::vector<std::string> list{"fine", x};
                 q.requeue_dead(list);
             }},
            {"purge_dead",
             [](Queue& q, const std::string& x) {
                 const std::vector<std::string> list{x};
                 q.purge_dead(list);
             }},
        };
        for (const auto& [op_name, op] : ops) {
            // An empty id in send means "generate one": valid, covered by every other row.
            if (id.empty() && op_name.starts_with("send")) continue;
            rows.push_back({"id", i.label + " (" + op_name + ")", Verdict::kInvalid, message,
                            send_scheduled, [id, op](CatalogueEnv& e) { op(e.q, id); }});
        }
        if (!i.on_cli) {
            // argv cannot carry a NUL, JSON lines can.
            rows.push_back({"id",
                            i.label + " (JSON lines)",
                            Verdict::kInvalid,
                            "",
                            {},
                            {},
                            {"send", "@Q", "--file", "-"},
                            "{\"payload\": \"x\", \"id\": \"nul\\u0000id\"}\n",
                            "line 1: " + message});
            continue;
        }
        if (!id.empty()) {
            rows.push_back({"id",
                            i.label + " (CLI send)",
                            Verdict::kInvalid,
                            "",
                            send_scheduled,
                            {},
                            {"send", "@Q", "x", "--id", id},
                            "",
                            message});
        }
        rows.push_back({"id",
                        i.label + " (CLI cancel)",
                        Verdict::kInvalid,
                        "",
                        send_scheduled,
                        {},
                        {"cancel", "@Q", id},
                        "",
                        message});
        rows.push_back({"id",
                        i.label + " (CLI dead purge)",
                        Verdict::kInvalid,
                        "",
                        send_scheduled,
                        {},
                        {"dead", "purge", "@Q", id},
                        "",
                        message});
    }
}

}  // namespace

std::vector<CatalogueCase> bad_input_catalogue() {
    Rows rows;
    payload_rows(rows);
    delay_rows(rows);
    at_rows(rows);
    expire_rows(rows);
    reschedule_rows(rows);
    nack_rows(rows);
    visibility_rows(rows);
    attempts_rows(rows);
    batch_rows(rows);
    queue_name_rows(rows);
    id_rows(rows);
    return rows;
}

}  // namespace delayq::test
