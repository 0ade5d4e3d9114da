// `delayq functions load|status|prune` against a real redis-server: what each shows and changes
// in the server's function libraries, and what it must never change.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cli/cli_fixture.hpp"

namespace delayq::test {
namespace {

constexpr const char* kOpsPassword = "functions-cli-secret";
// A library of another delayq build, and two that are not delayq's (one only looks like it).
constexpr const char* kOldBuild = "delayq_1_0123456789ab";
constexpr const char* kLookalike = "delayq_custom";
constexpr const char* kForeign = "mylib";

class FunctionsCliTest : public CliTest {
  protected:
    // This build's library's name, as `functions status --json` tells it.
    std::string library() const {
        const CliResult r = cli({"functions", "status", "--json"});
        return Json::parse(r.out).at("library").get<std::string>();
    }

    // Loads a one-function library of that name straight into Redis.
    void load_raw(const std::string& name, const std::string& body = "return 1") const {
        const RawReply r = redis_.command({"FUNCTION", "LOAD",
                                           "#!lua name=" + name + "\nredis.register_function('" +
                                               name + "_f', function() " + body + " end)"});
        ASSERT_FALSE(r.is_error()) << name << ": " << r.str;
    }

    // The names of every library the server holds, sorted as FUNCTION LIST gives them.
    std::vector<std::string> libraries() const {
        std::vector<std::string> names;
        for (const RawReply& lib : redis_.command({"FUNCTION", "LIST"}).elements) {
            for (std::size_t i = 0; i + 1 < lib.elements.size(); i += 2) {
                if (lib.elements[i].str == "library_name") names.push_back(lib.elements[i + 1].str);
            }
        }
        std::sort(names.begin(), names.end());
        return names;
    }

    // The code of library `name` on the server.
    std::string code_of(const std::string& name) const {
        const RawReply r = redis_.command({"FUNCTION", "LIST", "LIBRARYNAME", name, "WITHCODE"});
        for (const RawReply& lib : r.elements) {
            for (std::size_t i = 0; i + 1 < lib.elements.size(); i += 2) {
                if (lib.elements[i].str == "library_code") return lib.elements[i + 1].str;
            }
        }
        return "";
    }

    // A user made by `delayq acl` (with `extra` flags), and the options that run delayq as it.
    CliOptions as_new_user(const std::string& user, std::vector<std::string> extra = {}) const {
        std::vector<std::string> args = {"acl", "--user", user, "--role", "admin", "--queues", "*"};
        args.insert(args.end(), extra.begin(), extra.end());
        const CliResult r = cli(args);
        EXPECT_EQ(r.exit_code, 0) << r.err;
        redis_cli(redis_, r.out + "ACL SETUSER " + user + " >" + kOpsPassword + "\n");
        return {.env = {"DELAYQ_REDIS_URL=redis://" + user +
                            "@127.0.0.1:" + std::to_string(redis_.port()),
                        std::string("DELAYQ_REDIS_PASSWORD=") + kOpsPassword}};
    }
};

TEST_F(FunctionsCliTest, LoadIsIdempotentAndStatusShowsIt) {
    CliResult r = cli({"functions", "status", "--json"});
    EXPECT_EQ(r.exit_code, 1) << r.err;  // not loaded yet
    Json status = Json::parse(r.out);
    const std::string name = status.at("library");
    EXPECT_TRUE(name.starts_with("delayq_")) << name;
    EXPECT_FALSE(status.at("loaded").get<bool>());
    EXPECT_TRUE(status.at("libraries").empty());
    EXPECT_TRUE(libraries().empty());

    r = cli({"functions", "load"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "loaded " + name + "\n");
    EXPECT_EQ(libraries(), std::vector<std::string>{name});
    const std::string code = code_of(name);
    EXPECT_NE(code.find("#!lua name=" + name + "\n"), std::string::npos);

    r = cli({"functions", "load", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(Json::parse(r.out), (Json{{"library", name}, {"status", "already_loaded"}}));
    EXPECT_EQ(code_of(name), code);  // not reloaded, not replaced

    r = cli({"functions", "status", "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    status = Json::parse(r.out);
    EXPECT_TRUE(status.at("loaded").get<bool>());
    ASSERT_EQ(status.at("libraries").size(), 1U);
    const Json& ours = status.at("libraries")[0];
    EXPECT_EQ(ours.at("name"), name);
    EXPECT_TRUE(ours.at("this_build").get<bool>());
    EXPECT_TRUE(ours.at("code_matches").get<bool>());
    const auto functions = ours.at("functions").get<std::vector<std::string>>();
    for (const std::string op : {"send", "fetch", "ack", "stats"}) {
        EXPECT_NE(std::find(functions.begin(), functions.end(), name + "_" + op), functions.end())
            << op;
    }

    // The one name: a client of this build calls the library the command loaded.
    r = cli({"queue", "info", "q", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(Json::parse(r.out).at("engine").at("library"), name);
    EXPECT_EQ(Json::parse(r.out).at("engine").at("mode"), "functions");

    r = cli({"functions", "status"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("this build: " + name + ", loaded\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(name + "  yes"), std::string::npos) << r.out;
}

TEST_F(FunctionsCliTest, LoadRefusesALibraryOfItsNameWithOtherCode) {
    const std::string name = library();
    load_raw(name, "return 'forged'");
    const std::string forged = code_of(name);

    const CliResult r = cli({"functions", "load"});
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.err.find("holds other code than this build's: nothing was changed"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(code_of(name), forged);

    const CliResult s = cli({"functions", "status", "--json"});
    EXPECT_EQ(s.exit_code, 1);
    const Json status = Json::parse(s.out);
    EXPECT_FALSE(status.at("loaded").get<bool>());
    ASSERT_EQ(status.at("libraries").size(), 1U);
    EXPECT_TRUE(status.at("libraries")[0].at("this_build").get<bool>());
    EXPECT_FALSE(status.at("libraries")[0].at("code_matches").get<bool>());
    EXPECT_NE(cli({"functions", "status"}).out.find("OTHER CODE"), std::string::npos);
    // Prune leaves this build's name alone whatever it holds: an operator's call.
    EXPECT_EQ(cli({"functions", "prune", "--yes"}).exit_code, 0);
    EXPECT_EQ(code_of(name), forged);
}

TEST_F(FunctionsCliTest, PruneDeletesOtherBuildsOnlyAndAsksFirst) {
    ASSERT_EQ(cli({"functions", "load"}).exit_code, 0);
    const std::string name = library();
    for (const char* other : {kOldBuild, kLookalike, kForeign}) load_raw(other);
    const auto all = libraries();
    ASSERT_EQ(all.size(), 4U);

    // Not a terminal and no --yes: bad usage, nothing deleted.
    CliResult r = cli({"functions", "prune"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("--yes"), std::string::npos) << r.err;
    EXPECT_EQ(libraries(), all);

    r = cli({"functions", "prune", "--dry-run"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, std::string("would delete ") + kOldBuild + "\n");
    EXPECT_EQ(libraries(), all);

    r = cli({"functions", "prune"}, {.input = "n\n", .terminal = true});
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.out.find(std::string("Delete 1 delayq function library of other builds:\r\n  ") +
                         kOldBuild),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("no library was deleted"), std::string::npos) << r.out;
    EXPECT_EQ(libraries(), all);

    r = cli({"functions", "prune"}, {.input = "y\n", .terminal = true});
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find(std::string("deleted ") + kOldBuild), std::string::npos) << r.out;
    std::vector<std::string> kept = {name, kLookalike, kForeign};
    std::sort(kept.begin(), kept.end());
    EXPECT_EQ(libraries(), kept);

    load_raw(kOldBuild);
    r = cli({"functions", "prune", "--yes"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, std::string("deleted ") + kOldBuild + "\n");
    EXPECT_EQ(libraries(), kept);
    r = cli({"functions", "prune", "--yes"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "no delayq library of another build on this server\n");
    EXPECT_EQ(libraries(), kept);
}

// A role's user may look but not load or prune; --functions is the operator's grant that may.
TEST_F(FunctionsCliTest, LoadAndPruneNeedTheFunctionsGrant) {
    load_raw(kOldBuild);
    const CliOptions plain = as_new_user("plain");
    CliResult r = cli({"functions", "status", "--json"}, plain);
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_EQ(Json::parse(r.out).at("libraries")[0].at("name"), kOldBuild);
    r = cli({"functions", "load"}, plain);
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.err.find("permission denied: Redis refused FUNCTION LOAD"), std::string::npos)
        << r.err;
    r = cli({"functions", "prune", "--yes"}, plain);
    EXPECT_EQ(r.exit_code, 1) << r.out;
    EXPECT_NE(r.err.find("permission denied: Redis refused FUNCTION DELETE"), std::string::npos)
        << r.err;
    EXPECT_EQ(libraries(), std::vector<std::string>{kOldBuild});

    const CliOptions ops = as_new_user("ops", {"--functions"});
    // The grant is LOAD, LIST and DELETE; never FLUSH, which delayq never sends.
    const auto dry = [&](const std::string& sub) {
        return redis_.command({"ACL", "DRYRUN", "ops", "FUNCTION", sub, "x"}).str;
    };
    EXPECT_EQ(dry("DELETE"), "OK");
    EXPECT_EQ(dry("LOAD"), "OK");
    EXPECT_NE(redis_.command({"ACL", "DRYRUN", "ops", "FUNCTION", "FLUSH"}).str, "OK");
    EXPECT_NE(redis_.command({"ACL", "DRYRUN", "plain", "FUNCTION", "LOAD", "x"}).str, "OK");
    r = cli({"functions", "load"}, ops);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    r = cli({"functions", "prune", "--yes"}, ops);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(libraries(), std::vector<std::string>{library()});
    // Once loaded, the plain role's clients call it.
    r = cli({"queue", "info", "q", "--json"}, plain);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(Json::parse(r.out).at("engine").at("mode"), "functions");
}

}  // namespace
}  // namespace delayq::test
