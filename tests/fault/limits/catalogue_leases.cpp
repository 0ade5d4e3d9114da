// Catalogue rows: nack delays, visibility timeouts, fetch counts and the Consumer's durations.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "fault/limits/catalogue_support.hpp"

namespace delayq::test::catalogue {

void nack_rows(Rows& rows) {
    // The command line has no nack with a delay (a consume handler's failure uses the backoff).
    rows.push_back({"nack", "negative delay", Verdict::kInvalid, "nack delay must not be negative",
                    send_and_lease, [](CatalogueEnv& e) {
                        e.leases.nack(e.delivery->lease(), Nack{.delay = -1ms});
                    }});
    rows.push_back({"nack", "infinite delay", Verdict::kInvalid, "nack delay is absurdly long",
                    send_and_lease, [](CatalogueEnv& e) {
                        e.leases.nack(e.delivery->lease(), Nack{.delay = Duration::max()});
                    }});
    rows.push_back({"nack", "the largest delay: capped at 9999-12-31", Verdict::kValid, "",
                    send_and_lease, [](CatalogueEnv& e) {
                        const LeaseResult r =
                            e.leases.nack(e.delivery->lease(), Nack{.delay = Duration(kMaxTimeMs)});
                        EXPECT_EQ(r.status, LeaseStatus::kRetrying);
                        EXPECT_EQ(ms_of(r.at), kMaxTimeMs);
                        EXPECT_EQ(e.admin.get(e.id)->state, State::kScheduled);
                    }});
    rows.push_back({"nack", "error text of 100 kB with every byte value: cut to 4096 bytes",
                    Verdict::kValid, "", send_and_lease, [](CatalogueEnv& e) {
                        std::string text;
                        while (text.size() < 100'000) text += all_bytes();
                        const LeaseResult r =
                            e.leases.nack(e.delivery->lease(), Nack{.delay = 1h, .error = text});
                        EXPECT_EQ(r.status, LeaseStatus::kRetrying);
                        EXPECT_EQ(e.admin.get(e.id)->last_error, text.substr(0, 4096));
                    }});
}

void visibility_rows(Rows& rows) {
    rows.push_back({"visibility",
                    "zero (fetch)",
                    Verdict::kInvalid,
                    "visibility timeout must be at least 1 ms",
                    send_ready,
                    [](CatalogueEnv& e) { e.leases.fetch(1, 0ms); },
                    {"consume", "@Q", "--max", "1", "--visibility", "0"},
                    "",
                    "visibility"});
    rows.push_back({"visibility",
                    "negative (fetch)",
                    Verdict::kInvalid,
                    "visibility timeout must be at least 1 ms",
                    send_ready,
                    [](CatalogueEnv& e) { e.leases.fetch(1, -30s); },
                    {"consume", "@Q", "--max", "1", "--visibility", "-30s"},
                    "",
                    "must not be negative"});
    rows.push_back({"visibility",
                    "infinite (fetch)",
                    Verdict::kInvalid,
                    "visibility timeout is absurdly long",
                    send_ready,
                    [](CatalogueEnv& e) { e.leases.fetch(1, Duration::max()); },
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
                        const Delivery d = lease(e.leases, Duration(kMaxTimeMs));
                        const auto info = e.admin.get(d.id());
                        ASSERT_TRUE(info && info->lease_deadline);
                        EXPECT_EQ(ms_of(*info->lease_deadline) - ms_of(d.delivered_at()),
                                  kMaxTimeMs);
                        EXPECT_EQ(e.leases.ack(d.lease()).status, LeaseStatus::kAcked);
                    }});
    rows.push_back({"visibility", "zero (extend)", Verdict::kInvalid,
                    "visibility timeout must be at least 1 ms", send_and_lease,
                    [](CatalogueEnv& e) { e.leases.extend(e.delivery->lease(), 0ms); }});
    rows.push_back({"visibility", "infinite (extend)", Verdict::kInvalid,
                    "visibility timeout is absurdly long", send_and_lease, [](CatalogueEnv& e) {
                        e.leases.extend(e.delivery->lease(), Duration::max());
                    }});
    rows.push_back({"consumer", "zero visibility timeout", Verdict::kInvalid,
                    "visibility timeout must be at least 1 ms", send_ready, [](CatalogueEnv& e) {
                        Consumer c(e.leases, [](const Delivery&) -> Outcome { return Ack{}; },
                                   {.visibility_timeout = 0ms});
                        c.start();
                        c.stop();
                        c.wait();
                    }});
    rows.push_back({"consumer", "NaN backoff multiplier", Verdict::kInvalid, "backoff needs",
                    send_ready, [](CatalogueEnv& e) {
                        ConsumerOptions o;
                        o.backoff = Backoff{.multiplier = std::numeric_limits<double>::quiet_NaN()};
                        Consumer c(
                            e.leases, [](const Delivery&) -> Outcome { return Ack{}; }, o);
                        c.start();
                        c.stop();
                        c.wait();
                    }});
    // A Consumer times its work with steady_clock (nanoseconds): durations it adds to "now" must
    // stay far below that clock's range, not merely below the year 9999.
    const auto consumer_with = [](ConsumerOptions o) {
        return [o](CatalogueEnv& e) {
            Consumer c(
                e.leases, [](const Delivery&) -> Outcome { return Ack{}; }, o);
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
                    consumer_with({.backoff = Backoff{.initial = 1s, .max = Duration::max()}})});
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
                        EXPECT_THROW(e.leases.fetch(0, 30s), InvalidArgument);
                        e.leases.fetch(1001, 30s);
                    },
                    {"consume", "@Q", "--max", "0"},
                    "",
                    "max"});
}

}  // namespace delayq::test::catalogue
