// Catalogue rows: delays, due times, expiry and reschedule.
#include <gtest/gtest.h>

#include "fault/limits/catalogue_support.hpp"

namespace delayq::test::catalogue {

void delay_rows(Rows& rows) {
    rows.push_back({"delay",
                    "zero",
                    Verdict::kValid,
                    "",
                    {},
                    [](CatalogueEnv& e) { round_trip(e.client, e.q, "x", {.delay = 0ms}); },
                    {"send", "@Q", "x", "--delay", "0"},
                    "",
                    "",
                    [](CatalogueEnv& e, const CliResult& r) {
                        EXPECT_EQ(e.admin.get(first_line(r.out))->state, State::kReady);
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
                        EXPECT_EQ(e.admin.get(s.id)->state, State::kScheduled);
                        EXPECT_EQ(e.q.cancel(s.id), CancelResult::kCancelled);
                    },
                    {"send", "@Q", "x", "--delay", "2900000d"},
                    "",
                    "",
                    [](CatalogueEnv& e, const CliResult& r) {
                        const auto info = e.admin.get(first_line(r.out));
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
                    "earliest representable (TimePoint::min)",
                    Verdict::kInvalid,
                    "due time is before 1970",
                    {},
                    [](CatalogueEnv& e) { e.q.send("x", {.at = TimePoint::min()}); },
                    {"send", "@Q", "x", "--at", "0000-01-01T00:00:00Z"},
                    "",
                    "before 1970"});
    rows.push_back({"at",
                    "the epoch (long past: ready at once)",
                    Verdict::kValid,
                    "",
                    {},
                    [](CatalogueEnv& e) {
                        round_trip(e.client, e.q, "x", {.at = at_ms(0)});
                        EXPECT_EQ(ms_of(e.q.send("y", {.at = at_ms(0)}).due), 0);
                    },
                    {"send", "@Q", "x", "--at", "1970-01-01T00:00:00Z"},
                    "",
                    "",
                    stored_due(0)});
    rows.push_back({"at",
                    "past a nanosecond system_clock's end (2262-04-11): stored as given",
                    Verdict::kValid,
                    "",
                    {},
                    [](CatalogueEnv& e) {
                        const SendResult s = e.q.send("x", {.at = at_ms(20'000'000'000'000)});
                        EXPECT_EQ(ms_of(e.admin.get(s.id)->due), 20'000'000'000'000);
                    },
                    {"send", "@Q", "x", "--at", "2600-01-01T00:00:00Z"},
                    "",
                    "",
                    stored_due(19'880'899'200'000)});
    rows.push_back({"at",
                    "the latest time delayq accepts (9999-12-31T23:59:59.999Z)",
                    Verdict::kValid,
                    "",
                    {},
                    [](CatalogueEnv& e) {
                        const SendResult s = e.q.send("x", {.at = at_ms(kMaxTimeMs)});
                        EXPECT_EQ(ms_of(s.due), kMaxTimeMs);
                        EXPECT_EQ(ms_of(e.admin.get(s.id)->due), kMaxTimeMs);
                    },
                    {"send", "@Q", "x", "--at", "9999-12-31T23:59:59.999Z"},
                    "",
                    "",
                    stored_due(kMaxTimeMs)});
    rows.push_back({"at",
                    "one ms after 9999",
                    Verdict::kInvalid,
                    "due time is after the year 9999",
                    {},
                    [](CatalogueEnv& e) { e.q.send("x", {.at = at_ms(kMaxTimeMs + 1)}); },
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
                        const auto info = e.admin.get(s.id);
                        ASSERT_TRUE(info.has_value());
                        ASSERT_TRUE(info->expire_at.has_value());
                        EXPECT_EQ(ms_of(*info->expire_at) - ms_of(s.due), kMaxTimeMs);
                        const Delivery d = lease(e.leases);
                        EXPECT_EQ(e.leases.ack(d.lease()).status, LeaseStatus::kAcked);
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
                    [](CatalogueEnv& e) { e.q.reschedule_at(e.id, TimePoint::min()); },
                    {"reschedule", "@Q", "@ID", "--at", "-1"},
                    "",
                    "invalid time"});
    rows.push_back({"reschedule",
                    "at after 9999",
                    Verdict::kInvalid,
                    "due time is after the year 9999",
                    send_scheduled,
                    [](CatalogueEnv& e) { e.q.reschedule_at(e.id, at_ms(kMaxTimeMs + 1)); },
                    {"reschedule", "@Q", "@ID", "--at", std::to_string(kMaxTimeMs + 1)},
                    "",
                    "after the year 9999"});
    rows.push_back({"reschedule",
                    "at the latest time delayq accepts",
                    Verdict::kValid,
                    "",
                    send_scheduled,
                    [](CatalogueEnv& e) {
                        const RescheduleResult r = e.q.reschedule_at(e.id, at_ms(kMaxTimeMs));
                        EXPECT_EQ(r.status, RescheduleStatus::kRescheduled);
                        EXPECT_EQ(ms_of(r.due), kMaxTimeMs);
                        EXPECT_EQ(ms_of(e.admin.get(e.id)->due), kMaxTimeMs);
                    },
                    {"reschedule", "@Q", "@ID", "--at", std::to_string(kMaxTimeMs)},
                    "",
                    "",
                    [](CatalogueEnv& e, const CliResult&) {
                        EXPECT_EQ(ms_of(e.admin.get(e.id)->due), kMaxTimeMs);
                    }});
}

}  // namespace delayq::test::catalogue
