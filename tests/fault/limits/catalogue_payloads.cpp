// Catalogue rows: payloads, max_attempts and batches.
#include <gtest/gtest.h>

#include <climits>

#include "fault/limits/catalogue_support.hpp"

namespace delayq::test::catalogue {

void payload_rows(Rows& rows) {
    const std::string bytes = all_bytes();
    rows.push_back({"payload",
                    "empty",
                    Verdict::kValid,
                    "",
                    {},
                    [](CatalogueEnv& e) {
                        round_trip(e.client, e.q, "");
                        const std::vector<Message> batch{{"", {}}, {"", {.id = "empty-2"}}};
                        const auto sent = e.q.send_batch(batch);
                        ASSERT_EQ(sent.size(), 2U);
                        EXPECT_EQ(e.admin.get(sent[0].id)->payload, "");
                        EXPECT_EQ(e.admin.get("empty-2")->payload, "");
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
                        round_trip(e.client, e.q, bytes);
                        // Listing and a batch carry it unchanged too.
                        const std::vector<Message> batch{{bytes, {.delay = 1h}}};
                        const std::string id = e.q.send_batch(batch).at(0).id;
                        const auto listed = e.admin.list(State::kScheduled).messages;
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
                        const auto info = e.admin.get("b64");
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
                        round_trip(e.client, small, std::string(1000, 'p'));
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
                    [](CatalogueEnv& e) { round_trip(e.client, e.q, std::string(kMiB, '\xff')); },
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

void attempts_rows(Rows& rows) {
    rows.push_back(
        {"max_attempts", "0: the queue's default", Verdict::kValid, "", {}, [](CatalogueEnv& e) {
             e.admin.update_settings({.max_attempts = 3});
             const SendResult s = e.q.send("x", {.max_attempts = 0});
             EXPECT_EQ(e.admin.get(s.id)->max_attempts, 3);
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
                        const LeaseResult r =
                            e.leases.nack(lease(e.leases).lease(), Nack{.delay = 0ms});
                        EXPECT_EQ(r.status, LeaseStatus::kDeadLettered);
                        EXPECT_EQ(r.dead_reason, "attempts exhausted");
                        EXPECT_EQ(e.admin.get(s.id)->state, State::kDead);
                    },
                    {"send", "@Q", "x", "--max-attempts", "1"},
                    "",
                    "",
                    [](CatalogueEnv& e, const CliResult& r) {
                        EXPECT_EQ(e.admin.get(first_line(r.out))->max_attempts, 1);
                    }});
    rows.push_back({"max_attempts",
                    "1000000 (the limit)",
                    Verdict::kValid,
                    "",
                    {},
                    [](CatalogueEnv& e) {
                        const SendResult s = e.q.send("x", {.max_attempts = 1'000'000});
                        EXPECT_EQ(e.admin.get(s.id)->max_attempts, 1'000'000);
                    },
                    {"send", "@Q", "x", "--max-attempts", "1000000"},
                    "",
                    "",
                    [](CatalogueEnv& e, const CliResult& r) {
                        EXPECT_EQ(e.admin.get(first_line(r.out))->max_attempts, 1'000'000);
                    }});
    rows.push_back({"max_attempts",
                    "1000001",
                    Verdict::kInvalid,
                    "max_attempts must be from 1 to 1000000",
                    {},
                    [](CatalogueEnv& e) { e.q.send("x", {.max_attempts = 1'000'001}); },
                    {"send", "@Q", "x", "--max-attempts", "1000001"},
                    "",
                    // The shared limit (kMaxAttempts), as the option's range states it.
                    "not in range 1 to 1000000"});
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
    // A line of JSON reads as the service's body does (common/json): 0 is the queue's setting.
    rows.push_back({"max_attempts",
                    "0 in JSON lines: the queue's default",
                    Verdict::kValid,
                    "",
                    {},
                    {},
                    {"send", "@Q", "--file", "-"},
                    "{\"payload\": \"x\", \"max_attempts\": 0, \"id\": \"zero\"}\n",
                    "",
                    [](CatalogueEnv& e, const CliResult&) {
                        EXPECT_EQ(e.admin.get("zero")->max_attempts,
                                  e.admin.settings().max_attempts);
                    }});
    rows.push_back({"max_attempts",
                    "1000001 in JSON lines",
                    Verdict::kInvalid,
                    "",
                    {},
                    {},
                    {"send", "@Q", "--file", "-"},
                    "{\"payload\": \"x\", \"max_attempts\": 1000001}\n",
                    "max_attempts must be a whole number from 0 to 1000000"});
    rows.push_back({"max_attempts",
                    "queue setting 0",
                    Verdict::kInvalid,
                    "max_attempts must be from 1 to 1000000",
                    {},
                    [](CatalogueEnv& e) { e.admin.update_settings({.max_attempts = 0}); }});
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
                        EXPECT_EQ(e.admin.stats().totals.sent, 0U);
                    }});
    rows.push_back(
        {"batch", "1000 messages (the limit)", Verdict::kValid, "", {}, [](CatalogueEnv& e) {
             std::vector<Message> batch;
             for (int i = 0; i < 1000; ++i) batch.push_back({std::to_string(i), {}});
             const auto sent = e.q.send_batch(batch);
             ASSERT_EQ(sent.size(), 1000U);
             const auto first = lease(e.leases);
             EXPECT_EQ(first.id(), sent[0].id);
             EXPECT_EQ(first.payload(), "0");
             EXPECT_EQ(e.admin.stats().totals.sent, 1000U);
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

}  // namespace delayq::test::catalogue
