// The scripts' decoders of what they stored (lib/record.lua's records in msg, cold and blocks,
// lib/schedule.lua's specs, the history's points) fed bytes no script wrote: a value of the queue
// replaced by random bytes or a cut or flipped copy of itself, then every read and the fetch
// through the public API. Each call must answer or throw a delayq::Error (the script's error
// reply, raised by the client), never a crash of Redis nor another exception of the client; and
// Redis must still answer PING. The libFuzzer targets (fuzz/) cover the C++ decoders; these run
// in Redis, so they are driven here. DELAYQ_STORED_BYTES_SEED replays a seed.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "population.hpp"
#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using StoredBytesTest = RedisTest;

struct StoredValue {
    std::string key;
    std::string field;  // empty for a zset member (the history's points)
    std::string value;
    std::string score;  // a zset member's
};

// Every hash field and history point the population left, with its bytes.
std::vector<StoredValue> stored_values(RedisServer& server, const std::string& queue) {
    std::vector<StoredValue> out;
    for (const char* role : {"msg", "cold", "blocks", "schedules"}) {
        const std::string key = queue_key(queue, role);
        const RawReply all = server.command({"HGETALL", key});
        for (std::size_t i = 0; i + 1 < all.elements.size(); i += 2) {
            out.push_back({key, all.elements[i].str, all.elements[i + 1].str, ""});
        }
    }
    const std::string history = queue_key(queue, "history");
    const RawReply points = server.command({"ZRANGE", history, "0", "-1", "WITHSCORES"});
    for (std::size_t i = 0; i + 1 < points.elements.size(); i += 2) {
        out.push_back({history, "", points.elements[i].str, points.elements[i + 1].str});
    }
    return out;
}

std::string mangled(const std::string& original, std::mt19937_64& rng) {
    std::string s = original;
    switch (rng() % 4) {
        case 0:  // random bytes
            s.resize(rng() % 64);
            for (char& c : s) c = static_cast<char>(rng() % 256);
            break;
        case 1:  // cut short
            s.resize(s.empty() ? 0 : rng() % s.size());
            break;
        case 2:  // a byte flipped
            if (!s.empty()) s[rng() % s.size()] = static_cast<char>(rng() % 256);
            break;
        default:  // trailing bytes
            s.append(std::string(1 + rng() % 8, static_cast<char>(rng() % 256)));
    }
    return s;
}

// `v`'s place holds `bytes` instead of `from`.
void put(RedisServer& server, const StoredValue& v, const std::string& from,
         const std::string& bytes) {
    if (v.field.empty()) {
        server.command({"ZREM", v.key, from});
        server.command({"ZADD", v.key, v.score, bytes});
    } else {
        server.command({"HSET", v.key, v.field, bytes});
    }
}

struct Outcomes {
    int answered = 0;
    int refused = 0;  // a delayq::Error: the script's error reply, or a reply the client refuses
    std::vector<std::string> failures;
};

// Calls `call`; a failure unless it answered or threw a delayq::Error.
template <typename Call>
void answers_or_errs(const char* what, Call call, Outcomes& out) {
    try {
        call();
        ++out.answered;
    } catch (const Error&) {
        ++out.refused;
    } catch (const std::exception& e) {
        out.failures.push_back(std::string(what) + ": " + e.what());
    }
}

TEST_F(StoredBytesTest, ValuesNoScriptWroteAreErrorsNotCrashes) {
    const char* env = std::getenv("DELAYQ_STORED_BYTES_SEED");
    const std::uint64_t seed = env ? std::strtoull(env, nullptr, 10) : 1;
    std::mt19937_64 rng(seed);
    script_args::populate(client(), "sb");
    const std::vector<StoredValue> values = stored_values(server(), "sb");
    ASSERT_GT(values.size(), 10u) << "the population stores records, blocks, specs and points";
    QueueAdmin admin = client().admin("sb");
    Leases leases = client().leases("sb");
    Schedules schedules = client().schedules("sb");
    Outcomes outcomes;
    for (int round = 0; round < 120 && outcomes.failures.empty(); ++round) {
        const StoredValue& v = values[rng() % values.size()];
        const std::string bytes = mangled(v.value, rng);
        put(server(), v, v.value, bytes);
        answers_or_errs(
            "stats", [&] { admin.stats(); }, outcomes);
        answers_or_errs(
            "history", [&] { admin.history(TimePoint{}); }, outcomes);
        for (const State s : {State::kScheduled, State::kReady, State::kInFlight, State::kDead}) {
            answers_or_errs(
                "list", [&] { admin.list(s, {.limit = 100}); }, outcomes);
        }
        if (!v.field.empty() && !v.field.ends_with("#")) {
            answers_or_errs(
                "get", [&] { admin.get(v.field); }, outcomes);
        }
        answers_or_errs(
            "schedules", [&] { schedules.list(); }, outcomes);
        answers_or_errs(
            "fetch",
            [&] {
                for (const Delivery& d : leases.fetch(5, std::chrono::seconds(30)).deliveries) {
                    leases.release(d.lease());
                }
            },
            outcomes);
        ASSERT_EQ(server().command({"PING"}).str, "PONG")
            << "seed " << seed << ", round " << round << ", " << v.key << " " << v.field;
        put(server(), v, bytes, v.value);  // as it was, for the next round
    }
    EXPECT_TRUE(outcomes.failures.empty()) << "seed " << seed << ": " << outcomes.failures.front();
    std::cout << "stored bytes, seed " << seed << ": " << outcomes.answered << " calls answered, "
              << outcomes.refused << " refused\n";
    // The mangled values were read: some calls met them and refused.
    EXPECT_GT(outcomes.refused, 0);
}

}  // namespace
}  // namespace delayq::test
