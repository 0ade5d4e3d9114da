// delayq consume: JSON lines, --raw, --max with concurrency, --timeout, -- CMD, graceful stop.
#include <gtest/gtest.h>
#include <signal.h>

#include <delayq/delayq.hpp>
#include <map>
#include <set>

#include "cli/cli_fixture.hpp"
#include "support/read_file.hpp"

namespace delayq::test {
namespace {

using ConsumeTest = CliTest;

std::size_t files_starting_with(const std::filesystem::path& dir, const std::string& prefix) {
    std::size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        n += e.path().filename().string().starts_with(prefix) ? 1 : 0;
    }
    return n;
}

TEST_F(ConsumeTest, PrintsOneJsonLinePerMessageAndAcksIt) {
    send("q", "hello", {"--id", "text"});
    CliOptions bytes;
    bytes.input = std::string("\xff\xfe", 2);
    ASSERT_EQ(cli({"send", "q", "--id", "bytes"}, bytes).exit_code, 0);
    const long long sent_by = redis_.time_ms();

    const CliResult r = cli({"consume", "q", "--max", "2"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), 2U) << r.out;
    std::map<std::string, Json> by_id;
    for (const auto& j : lines) by_id[j.at("id")] = j;
    EXPECT_EQ(by_id["text"]["payload"], "hello");
    EXPECT_FALSE(by_id["text"].contains("payload_base64"));
    EXPECT_EQ(by_id["bytes"]["payload_base64"], "//4=");
    EXPECT_FALSE(by_id["bytes"].contains("payload"));
    for (const auto& j : lines) {
        EXPECT_EQ(j.at("attempt"), 1);
        EXPECT_LE(j.at("due_ms").get<long long>(), sent_by);
        EXPECT_GE(j.at("delivered_ms").get<long long>(), j.at("due_ms").get<long long>());
    }
    EXPECT_EQ(redis_.hlen(queue_key("q", "msg")), 0);
    EXPECT_EQ(stats("q")["totals"]["acked"], 2);
}

TEST_F(ConsumeTest, BinaryPayloadRoundTripsThroughStdinAndRaw) {
    std::string payload;
    for (int round = 0; round < 3; ++round) {
        for (int b = 0; b < 256; ++b) payload.push_back(static_cast<char>(b));
    }
    CliOptions o;
    o.input = payload;
    ASSERT_EQ(cli({"send", "bin"}, o).exit_code, 0);
    const CliResult r = cli({"consume", "bin", "--max", "1", "--raw"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, payload);
}

TEST_F(ConsumeTest, MaxWithMoreConcurrencyTakesExactlyMaxAndLosesNothing) {
    for (int i = 0; i < 10; ++i) send("q", "m" + std::to_string(i));
    const CliResult r = cli({"consume", "q", "--max", "3", "--concurrency", "8"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(json_lines(r.out).size(), 3U);
    const Json s = stats("q");
    EXPECT_EQ(s["totals"]["acked"], 3);
    // None beyond the three was even fetched, so none had to be handed back.
    EXPECT_EQ(s["totals"]["delivered"], 3);
    EXPECT_EQ(s["ready"], 7);
    EXPECT_EQ(s["in_flight"], 0);
    EXPECT_EQ(s["dead"], 0);
}

TEST_F(ConsumeTest, MaxWithConcurrencyAcrossSeveralRounds) {
    for (int i = 0; i < 12; ++i) send("q", "m" + std::to_string(i));
    const CliResult r = cli({"consume", "q", "--max", "7", "--concurrency", "3", "--", "true"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Json s = stats("q");
    EXPECT_EQ(s["totals"]["acked"], 7);
    EXPECT_EQ(s["totals"]["delivered"], 7);
    EXPECT_EQ(s["ready"], 5);
    EXPECT_EQ(s["in_flight"], 0);
}

// `n` messages, ready at once, sent in batches through the library.
void send_ready(const std::string& url, const std::string& queue, std::size_t n) {
    Client client(url);
    Queue q = client.queue(queue);
    std::vector<Message> batch;
    for (std::size_t i = 0; i < n; ++i) {
        batch.push_back({.payload = "m" + std::to_string(i)});
        if (batch.size() == 1000 || i + 1 == n) {
            q.send_batch(batch);
            batch.clear();
        }
    }
}

TEST_F(ConsumeTest, MaxPrintsExactlyThatManyWithAnyConcurrencyToAPipeOrAFile) {
    // 64 handlers once stopped after 448-494 of 500 messages and never exited.
    send_ready(redis_.url(), "q", 3000);
    std::size_t taken = 0;
    for (const bool to_file : {false, true}) {
        for (const std::string concurrency : {"1", "4", "64"}) {
            const std::string shown = concurrency + (to_file ? " to a file" : " to a pipe");
            CliOptions o;
            const auto file = scratch_ / ("out-" + concurrency);
            if (to_file) o.stdout_file = file.string();
            o.timeout = std::chrono::seconds(60);
            const CliResult r =
                cli({"consume", "q", "--max", "500", "--concurrency", concurrency}, o);
            ASSERT_EQ(r.exit_code, 0) << shown << ": " << r.err;
            const auto lines = json_lines(to_file ? read_file(file) : r.out);
            EXPECT_EQ(lines.size(), 500U) << shown;
            std::set<std::string> ids;
            for (const auto& j : lines) ids.insert(j.at("id").get<std::string>());
            EXPECT_EQ(ids.size(), 500U) << shown;
            taken += 500;
            const Json s = stats("q");
            EXPECT_EQ(s["totals"]["acked"], taken) << shown;
            EXPECT_EQ(s["totals"]["delivered"], taken) << shown;  // none fetched beyond
            EXPECT_EQ(s["ready"], 3000 - taken) << shown;
            EXPECT_EQ(s["in_flight"], 0) << shown;
        }
    }
}

TEST_F(ConsumeTest, MaxIsExactWithACommandAndManyHandlers) {
    send_ready(redis_.url(), "jobs", 100);
    const CliResult r = cli({"consume", "jobs", "--max", "40", "--concurrency", "16", "--", "true"},
                            {.timeout = std::chrono::seconds(60)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Json s = stats("jobs");
    EXPECT_EQ(s["totals"]["acked"], 40);
    EXPECT_EQ(s["totals"]["delivered"], 40);
    EXPECT_EQ(s["ready"], 60);
    EXPECT_EQ(s["in_flight"], 0);
}

TEST_F(ConsumeTest, NothingIsAckedThatCouldNotBeWritten) {
    send_ready(redis_.url(), "q", 10);
    // A reader that is gone (EPIPE) ends the consumer quietly; a full disk is a failure.
    const CliResult closed = cli({"consume", "q", "--max", "5"}, {.stdout_closed = true});
    EXPECT_EQ(closed.exit_code, 0) << closed.err;
    const CliResult full = cli({"consume", "q", "--max", "5"}, {.stdout_file = "/dev/full"});
    EXPECT_EQ(full.exit_code, 1) << full.err;
    EXPECT_NE(full.err.find("No space left on device"), std::string::npos) << full.err;
    const Json s = stats("q");
    EXPECT_EQ(s["totals"]["acked"], 0);
    EXPECT_EQ(s["totals"]["released"], 10);  // handed back unstarted: no attempt counted
    EXPECT_EQ(s["ready"], 10);
    EXPECT_EQ(s["in_flight"], 0);
    for (const Json& m : peek("q", "ready")) EXPECT_EQ(m["attempts"], 0) << m.dump();
}

TEST_F(ConsumeTest, TimeoutEndsAnIdleConsumer) {
    const CliResult r = cli({"consume", "q", "--timeout", "300ms"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.out.empty());
}

TEST_F(ConsumeTest, TimeoutCountsFromTheLastMessage) {
    send("q", "one");
    send("q", "later", {"--delay", "200ms"});
    const CliResult r = cli({"consume", "q", "--timeout", "5s"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(json_lines(r.out).size(), 2U) << r.out;
}

TEST_F(ConsumeTest, DeliversOnlyOnceDue) {
    send("q", "later", {"--delay", "300ms"});
    const CliResult r = cli({"consume", "q", "--max", "1"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), 1U);
    EXPECT_GE(lines[0]["delivered_ms"].get<long long>(), lines[0]["due_ms"].get<long long>());
}

TEST_F(ConsumeTest, CommandGetsThePayloadAndEnvironmentAndExitZeroAcks) {
    send("jobs", "payload for the command", {"--id", "job-1"});
    const long long due = peek("jobs", "ready").at(0)["due_ms"];
    const auto out = scratch_ / "out";
    std::filesystem::create_directories(out);
    CliOptions o;
    o.env.push_back("OUT=" + out.string());
    const std::string script =
        "cat > \"$OUT/payload\"; printf '%s|%s|%s|%s' \"$DELAYQ_QUEUE\" "
        "\"$DELAYQ_ID\" \"$DELAYQ_ATTEMPT\" \"$DELAYQ_DUE_MS\" > \"$OUT/env\"";
    const CliResult r = cli({"consume", "jobs", "--max", "1", "--", "sh", "-c", script}, o);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(read_file(out / "payload"), "payload for the command");
    EXPECT_EQ(read_file(out / "env"), "jobs|job-1|1|" + std::to_string(due));
    EXPECT_EQ(redis_.hlen(queue_key("jobs", "msg")), 0);
    EXPECT_EQ(stats("jobs")["totals"]["acked"], 1);
}

TEST_F(ConsumeTest, CommandFailureNacksAndKeepsItsLastStderrLines) {
    send("jobs", "x", {"--id", "job-1"});
    const CliResult r = cli({"consume", "jobs", "--max", "1", "--", "sh", "-c",
                             "echo 'first line' >&2; echo 'disk full while closing' >&2; exit 3"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("disk full while closing"), std::string::npos) << r.err;  // passed on
    // Its backoff may lapse between the two peeks, which then both list it: count ids.
    std::map<std::string, Json> by_id;
    for (const char* state : {"scheduled", "ready"}) {
        for (const auto& j : peek("jobs", state)) by_id.emplace(j["id"].get<std::string>(), j);
    }
    ASSERT_EQ(by_id.size(), 1U);
    const Json& message = by_id.begin()->second;
    EXPECT_EQ(message["attempts"], 1);
    const std::string error = message["last_error"];
    EXPECT_NE(error.find("status 3"), std::string::npos) << error;
    EXPECT_NE(error.find("first line\ndisk full while closing"), std::string::npos) << error;
    EXPECT_EQ(stats("jobs")["totals"]["retried"], 1);
    EXPECT_EQ(stats("jobs")["totals"]["acked"], 0);
}

TEST_F(ConsumeTest, CommandFailingOnTheLastAttemptDeadLetters) {
    send("jobs", "x", {"--id", "doomed", "--max-attempts", "1"});
    const CliResult r = cli({"consume", "jobs", "--max", "1", "--", "false"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto dead = peek("jobs", "dead");
    ASSERT_EQ(dead.size(), 1U);
    EXPECT_EQ(dead[0]["id"], "doomed");
    EXPECT_EQ(dead[0]["dead_reason"], "attempts exhausted");
    EXPECT_NE(dead[0]["last_error"].get<std::string>().find("status 1"), std::string::npos);
}

TEST_F(ConsumeTest, SigtermLetsRunningCommandsFinishAndLosesNothing) {
    for (int i = 0; i < 5; ++i) send("jobs", "job " + std::to_string(i));
    const auto out = scratch_ / "out";
    std::filesystem::create_directories(out);
    CliOptions o;
    o.env.push_back("OUT=" + out.string());
    auto p = start({"consume", "jobs", "--concurrency", "2", "--", "sh", "-c",
                    "touch \"$OUT/start.$DELAYQ_ID\"; sleep 1; cat > \"$OUT/done.$DELAYQ_ID\""},
                   o);
    ASSERT_TRUE(eventually([&] { return files_starting_with(out, "start.") >= 1; }));
    p->signal(SIGTERM);
    const CliResult r = p->wait();
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::size_t started = files_starting_with(out, "start.");
    // Every command that started also finished, and each of those messages was acked.
    EXPECT_EQ(files_starting_with(out, "done."), started);
    const Json s = stats("jobs");
    EXPECT_EQ(s["totals"]["acked"], started);
    EXPECT_EQ(s["in_flight"], 0);
    EXPECT_EQ(s["dead"], 0);
    EXPECT_EQ(s["ready"].get<std::size_t>() + s["scheduled"].get<std::size_t>() + started, 5U);
    EXPECT_EQ(redis_.hlen(queue_key("jobs", "msg")), static_cast<long long>(5 - started));
}

TEST_F(ConsumeTest, SigintStopsAnIdleConsumerCleanly) {
    auto p = start({"consume", "q"});
    send("q", "one");
    ASSERT_TRUE(p->await_output([](const std::string& out, const std::string&) {
        return out.find("\"one\"") != std::string::npos;
    }));
    p->signal(SIGINT);
    const CliResult r = p->wait();
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(json_lines(r.out).size(), 1U);
    EXPECT_EQ(redis_.hlen(queue_key("q", "msg")), 0);
}

TEST_F(ConsumeTest, MaxBlockedHandlersAreAckedWhenStoppedBySignal) {
    // --max 3 with concurrency 3: each handler waits for the third before returning, so a stop
    // with two handled must still ack those two.
    send("q", "a");
    send("q", "b");
    auto p = start({"consume", "q", "--max", "3", "--concurrency", "3"});
    ASSERT_TRUE(p->await_output(
        [](const std::string& out, const std::string&) { return count_lines(out) == 2; }));
    p->signal(SIGTERM);
    const CliResult r = p->wait();
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(stats("q")["totals"]["acked"], 2);
    EXPECT_EQ(redis_.hlen(queue_key("q", "msg")), 0);
}

TEST_F(ConsumeTest, ShellExampleClosesAnOrder) {
    send("orders", "{\"order\": 42}", {"--id", "order-42"});
    const auto log = scratch_ / "closed.log";
    CliOptions o;
    o.env.push_back("ORDERS_LOG=" + log.string());
    const CliResult r = cli({"consume", "orders", "--max", "1", "--", "sh",
                             std::string(DELAYQ_SOURCE_DIR) + "/examples/shell/close_order.sh"},
                            o);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "closed order-42\n");
    const std::string text = read_file(log);
    EXPECT_NE(text.find("closed {\"order\": 42} (message order-42, attempt 1, due "),
              std::string::npos)
        << text;
    EXPECT_EQ(redis_.hlen(queue_key("orders", "msg")), 0);
}

}  // namespace
}  // namespace delayq::test
