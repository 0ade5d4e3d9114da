#include <gtest/gtest.h>

#include <climits>

#include "delayq/options.hpp"

namespace delayq {
namespace {

using namespace std::chrono_literals;

Backoff no_jitter() {
    Backoff b;
    b.initial = 100ms;
    b.max = 10s;
    b.multiplier = 2.0;
    b.jitter = 0.0;
    return b;
}

// Checks low <= d <= high: delays are rounded to milliseconds, so the tests bound them rather
// than compare them.
void expect_between(Duration d, Duration low, Duration high) {
    EXPECT_GE(d, low);
    EXPECT_LE(d, high);
}

TEST(BackoffTest, GrowsGeometricallyFromInitial) {
    const Backoff b = no_jitter();
    EXPECT_EQ(b.delay_for(1, 0.5), 100ms);
    EXPECT_EQ(b.delay_for(2, 0.5), 200ms);
    EXPECT_EQ(b.delay_for(3, 0.5), 400ms);
    EXPECT_EQ(b.delay_for(7, 0.5), 6400ms);
}

TEST(BackoffTest, IsCappedAtMax) {
    const Backoff b = no_jitter();
    EXPECT_EQ(b.delay_for(8, 0.5), 10s);
    EXPECT_EQ(b.delay_for(50, 0.5), 10s);
}

TEST(BackoffTest, HugeAttemptsDoNotOverflow) {
    Backoff b = no_jitter();
    b.max = 1h;
    EXPECT_EQ(b.delay_for(1000, 0.0), 1h);
    EXPECT_EQ(b.delay_for(INT_MAX, 0.999), 1h);
}

TEST(BackoffTest, WithoutJitterRandomHasNoEffect) {
    const Backoff b = no_jitter();
    EXPECT_EQ(b.delay_for(3, 0.0), b.delay_for(3, 0.999));
}

TEST(BackoffTest, MultiplierOneIsConstant) {
    Backoff b = no_jitter();
    b.multiplier = 1.0;
    EXPECT_EQ(b.delay_for(1, 0.5), 100ms);
    EXPECT_EQ(b.delay_for(20, 0.5), 100ms);
}

TEST(BackoffTest, JitterSpreadsAroundTheBase) {
    Backoff b = no_jitter();
    b.initial = 1s;
    b.jitter = 0.2;
    // 1 ms of slack everywhere: the result is rounded to milliseconds.
    expect_between(b.delay_for(1, 0.0), 799ms, 801ms);
    expect_between(b.delay_for(1, 0.5), 999ms, 1001ms);
    expect_between(b.delay_for(1, 0.999999), 1198ms, 1200ms);
}

TEST(BackoffTest, JitterIsMonotonicInTheRandomInput) {
    Backoff b = no_jitter();
    b.initial = 1s;
    b.jitter = 0.5;
    Duration previous{0};
    for (int i = 0; i < 100; ++i) {
        const Duration d = b.delay_for(2, i / 100.0);
        EXPECT_GE(d, previous) << "random01=" << i / 100.0;
        EXPECT_GE(d, 1000ms);
        EXPECT_LT(d, 3000ms);
        previous = d;
    }
}

TEST(BackoffTest, JitterAppliesAfterTheCap) {
    Backoff b = no_jitter();
    b.max = 10s;
    b.jitter = 0.2;
    expect_between(b.delay_for(40, 0.0), 7999ms, 8001ms);
}

TEST(BackoffTest, DefaultsAreOneSecondDoubling) {
    const Backoff b;
    EXPECT_EQ(b.initial, 1s);
    EXPECT_EQ(b.max, 1h);
    expect_between(b.delay_for(3, 0.5), 3999ms, 4001ms);
}

}  // namespace
}  // namespace delayq
