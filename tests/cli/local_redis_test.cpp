// The managed local Redis: started once on first use, reused, race-safe, stopped on request.
#include <gtest/gtest.h>

#include <fstream>

#include "cli/cli_fixture.hpp"

namespace delayq::test {
namespace {

class LocalRedisTest : public CliTest {
  protected:
    // No Redis URL anywhere: delayq must manage its own server in home_.
    CliOptions local() const {
        CliOptions o;
        o.unset = {"DELAYQ_REDIS_URL", "XDG_DATA_HOME"};
        return o;
    }
    CliResult local_cli(const std::vector<std::string>& args) const { return cli(args, local()); }

    // Live redis-server processes serving our socket (zombies, which an orphaned daemon can
    // become in a container, do not count).
    int servers_for_home() const {
        int n = 0;
        for (const auto& e : std::filesystem::directory_iterator("/proc")) {
            const std::string name = e.path().filename().string();
            if (name.find_first_not_of("0123456789") != std::string::npos) continue;
            std::ifstream cmdline(e.path() / "cmdline");
            std::string text((std::istreambuf_iterator<char>(cmdline)), {});
            std::ifstream stat(e.path() / "stat");
            std::string stat_line;
            std::getline(stat, stat_line);
            const auto paren = stat_line.rfind(')');
            const bool zombie = paren != std::string::npos && paren + 2 < stat_line.size() &&
                                stat_line[paren + 2] == 'Z';
            if (!zombie && text.find("redis-server") != std::string::npos &&
                text.find((home_ / "redis.sock").string()) != std::string::npos) {
                ++n;
            }
        }
        return n;
    }

    std::string status_pid() const {
        const CliResult r = local_cli({"local", "status"});
        const auto at = r.out.find("running (pid ");
        if (r.exit_code != 0 || at != 0) return "";
        return r.out.substr(13, r.out.find(')') - 13);
    }
};

TEST_F(LocalRedisTest, StartsOnFirstUseAndIsReusedAfterwards) {
    CliResult r = local_cli({"local", "status"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.out.find("not running"), std::string::npos) << r.out;
    EXPECT_EQ(servers_for_home(), 0);

    r = local_cli({"send", "lq", "first", "--id", "m1"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string pid = status_pid();
    ASSERT_FALSE(pid.empty());
    EXPECT_EQ(servers_for_home(), 1);
    EXPECT_TRUE(std::filesystem::exists(home_ / "redis.sock"));
    r = local_cli({"local", "status"});
    EXPECT_NE(r.out.find("unix://" + (home_ / "redis.sock").string()), std::string::npos);

    r = local_cli({"send", "lq", "second", "--id", "m2"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(status_pid(), pid);  // the same server
    EXPECT_EQ(servers_for_home(), 1);

    r = local_cli({"consume", "lq", "--max", "2"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(json_lines(r.out).size(), 2U);
    EXPECT_EQ(redis_.dbsize(), 0);  // the test's own server was never used

    r = local_cli({"local", "stop"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "stopped (pid " + pid + ")\n");
    EXPECT_EQ(local_cli({"local", "status"}).exit_code, 1);
    EXPECT_EQ(servers_for_home(), 0);
    EXPECT_EQ(local_cli({"local", "stop"}).out, "not running\n");
}

TEST_F(LocalRedisTest, DataSurvivesARestartAndTheServerRefusesToEvict) {
    ASSERT_EQ(local_cli({"send", "lq", "kept", "--delay", "1h", "--id", "keep"}).exit_code, 0);
    ASSERT_EQ(local_cli({"local", "stop"}).exit_code, 0);
    const CliResult r = local_cli({"peek", "lq", "--json"});  // starts it again
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto lines = json_lines(r.out);
    ASSERT_EQ(lines.size(), 1U);
    EXPECT_EQ(lines[0]["id"], "keep");
    EXPECT_TRUE(std::filesystem::exists(home_ / "appendonlydir"));
    // No warning about an evicting policy: the managed server runs with noeviction.
    EXPECT_EQ(r.err.find("maxmemory"), std::string::npos) << r.err;
}

TEST_F(LocalRedisTest, CommandsStartingAtOnceShareOneServer) {
    std::vector<std::unique_ptr<CliProcess>> procs;
    procs.reserve(4);
    for (int i = 0; i < 4; ++i) {
        procs.push_back(start({"send", "lq", "m" + std::to_string(i)}, local()));
    }
    for (auto& p : procs) {
        const CliResult r = p->wait();
        EXPECT_EQ(r.exit_code, 0) << r.err;
    }
    EXPECT_EQ(servers_for_home(), 1);
    const CliResult r = local_cli({"stats", "lq", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(Json::parse(r.out)["ready"], 4);
}

TEST_F(LocalRedisTest, DataDirectoryComesFromXdgDataHomeWithoutDelayqHome) {
    const auto xdg = scratch_ / "xdg";
    CliOptions o;
    o.unset = {"DELAYQ_REDIS_URL"};
    // options() sets DELAYQ_HOME; an empty value counts as unset.
    o.env = {"XDG_DATA_HOME=" + xdg.string()};
    CliOptions plain = options(o);
    for (auto& e : plain.env) {
        if (e.starts_with("DELAYQ_HOME=")) e = "DELAYQ_HOME=";
    }
    CliResult r = run_cli({"send", "lq", "x"}, plain);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(std::filesystem::exists(xdg / "delayq" / "redis.sock"));
    r = run_cli({"local", "stop"}, plain);
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("stopped"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace delayq::test
