#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "support/fixture.hpp"
#include "support/shell_quote.hpp"

#ifndef DELAYQ_SKEW_PROBE
#error "DELAYQ_SKEW_PROBE must name the delayq_skew_probe binary"
#endif

namespace delayq::test {
namespace {

std::string find_on_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::stringstream dirs(path != nullptr ? path : "");
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
        const std::filesystem::path candidate = std::filesystem::path(dir) / name;
        if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
    return "";
}

struct ProbeRun {
    int status = -1;
    std::string out;
};

class ClockSkewTest : public RedisTest {
  protected:
    void SetUp() override {
        faketime_ = find_on_path("faketime");
        if (faketime_.empty()) {
            GTEST_SKIP() << "faketime is not installed (Debian package 'faketime'): the clock "
                            "skew tests need it";
        }
        RedisTest::SetUp();
    }

    // Runs the probe with its wall clock shifted by `offset` (a faketime -f spec like "-10m").
    ProbeRun probe(const std::string& offset, const std::string& args) {
        std::string asan = "verify_asan_link_order=0";
        if (const char* existing = std::getenv("ASAN_OPTIONS")) {
            asan = std::string(existing) + ":" + asan;
        }
        // Only the wall clock moves: a steady clock is not a wall clock, and the probe's own
        // timeouts run on it.
        const std::string command =
            "env FAKETIME_DONT_FAKE_MONOTONIC=1 ASAN_OPTIONS=" + shell_quote(asan) + " " +
            shell_quote(faketime_) + " -m -f " + shell_quote(offset) + " " +
            shell_quote(DELAYQ_SKEW_PROBE) + " " + args;
        ProbeRun run;
        FILE* pipe = ::popen(command.c_str(), "r");
        if (pipe == nullptr) return run;
        std::array<char, 512> buffer{};
        while (std::fgets(buffer.data(), static_cast<int>(buffer.size()), pipe) != nullptr) {
            run.out += buffer.data();
        }
        const int status = ::pclose(pipe);
        run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        return run;
    }

    // Checks that faketime really shifts the probe's clock, or the test would prove nothing.
    void expect_clock_shifted(const std::string& offset, std::int64_t expected_shift_ms) {
        const ProbeRun run = probe(offset, "clock");
        ASSERT_EQ(run.status, 0) << run.out;
        const std::int64_t shift = std::stoll(run.out) - server().time_ms();
        EXPECT_GT(shift * expected_shift_ms, 0) << "faketime did not shift the clock";
        EXPECT_GT(std::llabs(shift), std::llabs(expected_shift_ms) / 2);
    }

    // Sends under one skew and consumes under the opposite one.
    void send_then_consume(const std::string& send_offset, const std::string& consume_offset) {
        const std::string args = shell_quote(server().url()) + " skewed";
        const std::int64_t before = server().time_ms();
        const ProbeRun sent = probe(send_offset, "send " + args + " 2000");
        const std::int64_t after = server().time_ms();
        ASSERT_EQ(sent.status, 0) << sent.out;
        std::istringstream send_out(sent.out);
        std::string id;
        std::int64_t due = 0;
        ASSERT_TRUE(send_out >> id >> due) << sent.out;
        // The delay counts from the Redis clock, whatever the sender's clock says.
        EXPECT_GE(due, before + 2000);
        EXPECT_LE(due, after + 2000);
        const auto info = client().admin("skewed").get(id);
        ASSERT_TRUE(info);
        EXPECT_EQ(ms(info->due), due);

        const ProbeRun consumed = probe(consume_offset, "consume " + args);
        ASSERT_EQ(consumed.status, 0) << "the consumer never delivered: " << consumed.out;
        std::istringstream consume_out(consumed.out);
        std::string got_id;
        std::int64_t got_due = 0;
        std::int64_t delivered_at = 0;
        int attempt = 0;
        ASSERT_TRUE(consume_out >> got_id >> got_due >> delivered_at >> attempt) << consumed.out;
        EXPECT_EQ(got_id, id);
        EXPECT_EQ(got_due, due);
        EXPECT_GE(delivered_at, due);
        EXPECT_LE(delivered_at, server().time_ms());
        EXPECT_EQ(attempt, 1);
    }

    std::string faketime_;
};

TEST_F(ClockSkewTest, SenderBehindConsumerAhead) {
    expect_clock_shifted("-10m", -600'000);
    send_then_consume("-10m", "+10m");
}

TEST_F(ClockSkewTest, SenderAheadConsumerBehind) {
    expect_clock_shifted("+10m", 600'000);
    send_then_consume("+10m", "-10m");
}

}  // namespace
}  // namespace delayq::test
