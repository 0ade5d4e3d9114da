// Issue 5, scenario 9: the bad-input catalogue (bad_input_catalogue.cpp), run through the library
// and through the `delayq` binary against one redis-server. Every invalid row is checked to write
// nothing: DBSIZE, DEBUG DIGEST and a SCAN listing are compared before and after.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <iostream>
#include <typeinfo>

#include "fault/limits/bad_input_catalogue.hpp"
#include "fault/limits/keyspace.hpp"

namespace delayq::test {
namespace {

using namespace std::chrono_literals;

class BadInputCatalogue : public ::testing::Test {
  protected:
    void SetUp() override {
        // Something to keep, so that "unchanged" means more than "still empty".
        Queue seed = client_.queue("seed");
        seed.send("kept", {.delay = 1h, .id = "kept"});
        seed.send("dead", {.id = "dead", .max_attempts = 1});
        Leases seed_leases = client_.leases("seed");
        const FetchResult f = seed_leases.fetch(1, 30s);
        ASSERT_EQ(f.deliveries.size(), 1U);
        ASSERT_EQ(seed_leases.reject(f.deliveries[0].lease(), Reject{.error = "seed"}).status,
                  LeaseStatus::kDeadLettered);
        std::string dir = (std::filesystem::temp_directory_path() / "dq-limits-XXXXXX").string();
        ASSERT_NE(::mkdtemp(dir.data()), nullptr);
        home_ = dir;
    }

    void TearDown() override {
        std::error_code ec;
        std::filesystem::remove_all(home_, ec);
    }

    CliResult cli(std::vector<std::string> args, const std::string& queue, const std::string& id,
                  const std::string& input) const {
        for (auto& a : args) {
            if (a == "@Q") a = queue;
            if (a == "@ID") a = id;
        }
        CliOptions o;
        o.input = input;
        o.env = {"DELAYQ_REDIS_URL=" + server_.url(), "DELAYQ_HOME=" + home_.string()};
        o.timeout = 60s;
        return run_cli(args, o);
    }

    static std::string label(const CatalogueCase& c) { return c.topic + ": " + c.what; }

    RedisServer server_;
    Client client_{server_.url()};
    std::filesystem::path home_;
};

TEST_F(BadInputCatalogue, ThroughTheLibrary) {
    const auto rows = bad_input_catalogue();
    int valid = 0;
    int invalid = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const CatalogueCase& c = rows[i];
        if (!c.library) continue;
        SCOPED_TRACE(label(c));
        const std::string name = "L" + std::to_string(i);
        CatalogueEnv env{client_, server_, client_.queue(name), client_.admin(name),
                         client_.leases(name)};
        if (c.prepare) c.prepare(env);
        const Keyspace before = keyspace(server_);
        if (c.verdict == Verdict::kValid) {
            ++valid;
            std::cout << "library | " << label(c) << " | valid\n";
            try {
                c.library(env);
            } catch (const std::exception& e) {
                ADD_FAILURE() << "valid input failed: " << typeid(e).name() << ": " << e.what();
            }
            continue;
        }
        ++invalid;
        try {
            c.library(env);
            ADD_FAILURE() << "accepted";
        } catch (const InvalidArgument& e) {
            std::cout << "library | " << label(c) << " | " << e.what() << "\n";
            EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos)
                << "message: " << e.what() << "\nexpected: " << c.message;
        } catch (const Error& e) {
            ADD_FAILURE() << "not InvalidArgument: " << typeid(e).name() << ": " << e.what();
        } catch (const std::exception& e) {
            ADD_FAILURE() << "not rooted at delayq::Error: " << typeid(e).name() << ": "
                          << e.what();
        }
        const Keyspace after = keyspace(server_);
        EXPECT_EQ(after, before) << "before: " << describe(before)
                                 << "\nafter: " << describe(after);
    }
    std::cout << "library rows: " << valid << " valid, " << invalid << " invalid\n";
    EXPECT_GT(invalid, 0);
}

TEST_F(BadInputCatalogue, ThroughTheCommandLine) {
    const auto rows = bad_input_catalogue();
    int valid = 0;
    int invalid = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const CatalogueCase& c = rows[i];
        if (c.cli.empty()) continue;
        SCOPED_TRACE(label(c));
        const std::string name = "C" + std::to_string(i);
        CatalogueEnv env{client_, server_, client_.queue(name), client_.admin(name),
                         client_.leases(name)};
        if (c.prepare) c.prepare(env);
        const Keyspace before = keyspace(server_);
        const CliResult r = cli(c.cli, env.q.name(), env.id, c.cli_input);
        std::cout << "cli | " << label(c) << " | exit " << r.exit_code << " | "
                  << r.err.substr(0, r.err.find('\n')).substr(0, 160) << "\n";
        if (c.verdict == Verdict::kValid) {
            ++valid;
            EXPECT_EQ(r.exit_code, 0) << "stderr: " << r.err;
            if (r.exit_code == 0 && c.cli_check) c.cli_check(env, r);
            continue;
        }
        ++invalid;
        const std::string& expected = c.cli_message.empty() ? c.message : c.cli_message;
        EXPECT_EQ(r.exit_code, 2) << "stdout: " << r.out << "\nstderr: " << r.err;
        EXPECT_NE(r.err.find(expected), std::string::npos)
            << "stderr: " << r.err << "\nexpected: " << expected;
        EXPECT_TRUE(r.out.empty()) << "stdout: " << r.out;
        const Keyspace after = keyspace(server_);
        EXPECT_EQ(after, before) << "before: " << describe(before)
                                 << "\nafter: " << describe(after);
    }
    std::cout << "command-line rows: " << valid << " valid, " << invalid << " invalid\n";
    EXPECT_GT(invalid, 0);
}

}  // namespace
}  // namespace delayq::test
