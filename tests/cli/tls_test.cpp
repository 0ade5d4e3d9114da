// The CLI over TLS: the --redis-tls-* global options and their DELAYQ_REDIS_TLS_* variables,
// mutual TLS, and clear failures (exit 1, nothing written) when verification fails.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli/cli_fixture.hpp"
#include "support/test_certificates.hpp"

namespace delayq::test {
namespace {

const TestCertificates& certificates() {
    static const TestCertificates certs;
    return certs;
}

// A TLS-only Redis and a private DELAYQ_HOME per test; no TLS setting comes from the caller's
// environment.
class CliTlsTest : public ::testing::Test {
  protected:
    explicit CliTlsTest(bool require_client_cert = false)
        : redis_({.tls = RedisServerTls{.cert_file = certificates().server_cert(),
                                        .key_file = certificates().server_key(),
                                        .ca_file = certificates().ca(),
                                        .require_client_cert = require_client_cert}}) {}

    CliResult cli(const std::vector<std::string>& args, std::vector<std::string> env = {}) const {
        CliOptions o;
        o.env = std::move(env);
        o.env.push_back("DELAYQ_REDIS_URL=" + redis_.url());
        o.env.push_back("DELAYQ_HOME=" + (redis_.dir() / "home").string());
        o.unset = {"DELAYQ_REDIS_TLS_CA", "DELAYQ_REDIS_TLS_CERT", "DELAYQ_REDIS_TLS_KEY",
                   "DELAYQ_REDIS_TLS_SERVER_NAME", "DELAYQ_REDIS_TLS_INSECURE_SKIP_VERIFY"};
        for (const auto& e : o.env) {
            const std::string name = e.substr(0, e.find('='));
            std::erase(o.unset, name);
        }
        return run_cli(args, o);
    }

    // Sends, consumes and reads the stats with these extra arguments or environment.
    void round_trip(const std::vector<std::string>& extra, const std::vector<std::string>& env) {
        auto with = [&](std::vector<std::string> args) {
            args.insert(args.end(), extra.begin(), extra.end());
            return args;
        };
        const CliResult sent = cli(with({"send", "q", "over tls"}), env);
        ASSERT_EQ(sent.exit_code, 0) << sent.err;
        const CliResult consumed = cli(with({"consume", "q", "--max", "1"}), env);
        ASSERT_EQ(consumed.exit_code, 0) << consumed.err;
        const std::vector<Json> lines = json_lines(consumed.out);
        ASSERT_EQ(lines.size(), 1u) << consumed.out;
        EXPECT_EQ(lines[0]["payload"], "over tls");
        const CliResult stats = cli(with({"stats", "q", "--json"}), env);
        ASSERT_EQ(stats.exit_code, 0) << stats.err;
        EXPECT_EQ(Json::parse(stats.out)["totals"]["acked"], 1);
    }

    RedisServer redis_;
};

TEST_F(CliTlsTest, SendConsumeAndStatsWithTheOptions) {
    round_trip({"--redis-tls-ca", certificates().ca()}, {});
}

TEST_F(CliTlsTest, SendConsumeAndStatsWithTheEnvironment) {
    round_trip({}, {"DELAYQ_REDIS_TLS_CA=" + certificates().ca(),
                    "DELAYQ_REDIS_TLS_SERVER_NAME=localhost"});
}

TEST_F(CliTlsTest, ServerNameOptionIsVerified) {
    const CliResult r = cli({"send", "q", "x", "--redis-tls-ca", certificates().ca(),
                             "--redis-tls-server-name", "other.example"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("host name mismatch"), std::string::npos) << r.err;
    EXPECT_EQ(redis_.dbsize(), 0);
}

TEST_F(CliTlsTest, WrongCaExits1SayingWhy) {
    const CliResult r = cli({"send", "q", "x", "--redis-tls-ca", certificates().other_ca()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("certificate verify failed"), std::string::npos) << r.err;
    EXPECT_EQ(redis_.dbsize(), 0);
}

TEST_F(CliTlsTest, InsecureSkipVerifyWarns) {
    const CliResult r = cli({"send", "q", "x", "--redis-tls-insecure-skip-verify"},
                            {"DELAYQ_REDIS_TLS_CA=" + certificates().other_ca()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("TLS verification is OFF"), std::string::npos) << r.err;
    EXPECT_EQ(redis_.zcard(queue_key("q", "pending")), 1);

    const CliResult by_env = cli({"send", "q", "y"}, {"DELAYQ_REDIS_TLS_INSECURE_SKIP_VERIFY=1"});
    EXPECT_EQ(by_env.exit_code, 0) << by_env.err;
    EXPECT_NE(by_env.err.find("TLS verification is OFF"), std::string::npos) << by_env.err;
}

TEST_F(CliTlsTest, PlainUrlToTheTlsPortExits1SayingWhy) {
    const std::string plain = "redis://127.0.0.1:" + std::to_string(redis_.port());
    const CliResult r = cli({"send", "q", "x", "--redis", plain});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("use rediss://"), std::string::npos) << r.err;
}

TEST_F(CliTlsTest, BadTlsOptionsExit2) {
    const CliResult key_only = cli({"send", "q", "x", "--redis-tls-ca", certificates().ca(),
                                    "--redis-tls-key", certificates().client_key()});
    EXPECT_EQ(key_only.exit_code, 2);
    EXPECT_NE(key_only.err.find("a client key needs its certificate"), std::string::npos)
        << key_only.err;
    const CliResult missing = cli({"send", "q", "x", "--redis-tls-ca", "/nonexistent/ca.crt"});
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("cannot read the CA file /nonexistent/ca.crt"), std::string::npos)
        << missing.err;
    const std::string plain = "redis://127.0.0.1:" + std::to_string(redis_.port());
    const CliResult not_rediss =
        cli({"send", "q", "x", "--redis", plain, "--redis-tls-ca", certificates().ca()});
    EXPECT_EQ(not_rediss.exit_code, 2);
    EXPECT_NE(not_rediss.err.find("use rediss://"), std::string::npos) << not_rediss.err;
    EXPECT_EQ(redis_.dbsize(), 0);
}

class CliMutualTlsTest : public CliTlsTest {
  protected:
    CliMutualTlsTest() : CliTlsTest(true) {}
};

TEST_F(CliMutualTlsTest, ClientCertificateFromOptionsAndEnvironment) {
    round_trip({"--redis-tls-ca", certificates().ca(), "--redis-tls-cert",
                certificates().client_cert(), "--redis-tls-key", certificates().client_key()},
               {});
    const CliResult r =
        cli({"send", "q", "x"}, {"DELAYQ_REDIS_TLS_CA=" + certificates().ca(),
                                 "DELAYQ_REDIS_TLS_CERT=" + certificates().client_cert(),
                                 "DELAYQ_REDIS_TLS_KEY=" + certificates().client_key()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(CliMutualTlsTest, MissingClientCertificateExits1SayingWhy) {
    const CliResult r = cli({"send", "q", "x", "--redis-tls-ca", certificates().ca()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("the server asked for a client certificate"), std::string::npos) << r.err;
    EXPECT_EQ(redis_.dbsize(), 0);
}

}  // namespace
}  // namespace delayq::test
