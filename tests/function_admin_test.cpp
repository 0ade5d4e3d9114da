// Client::functions(), the operator's FunctionAdmin, on a real redis-server: what load, status
// and prune may change and what they must leave alone. The CLI's side is
// tests/cli/functions_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/acl.hpp"
#include "support/fixture.hpp"
#include "support/full_redis.hpp"

namespace delayq::test {
namespace {

class FunctionAdminTest : public RedisTest {
  protected:
    FunctionAdmin functions() { return client().functions(); }

    void load_raw(const std::string& name) {
        const RawReply r = server().command({"FUNCTION", "LOAD",
                                             "#!lua name=" + name + "\nredis.register_function('" +
                                                 name + "_f', function() return 1 end)"});
        ASSERT_FALSE(r.is_error()) << name << ": " << r.str;
    }

    std::vector<std::string> libraries() {
        std::vector<std::string> names;
        for (const RawReply& lib : server().command({"FUNCTION", "LIST"}).elements) {
            for (std::size_t i = 0; i + 1 < lib.elements.size(); i += 2) {
                if (lib.elements[i].str == "library_name") names.push_back(lib.elements[i + 1].str);
            }
        }
        std::sort(names.begin(), names.end());
        return names;
    }
};

TEST_F(FunctionAdminTest, StatusNamesTheLibraryClientsCall) {
    const FunctionsStatus before = functions().status();
    EXPECT_FALSE(before.loaded);
    EXPECT_TRUE(before.libraries.empty());
    // An operation loads it (function mode is the default): status sees the client's library.
    queue().send("x");
    const FunctionsStatus after = functions().status();
    EXPECT_EQ(after.library, before.library);
    EXPECT_EQ(after.library, client().engine().library);
    EXPECT_EQ(after.loaded, client().engine().mode == ScriptEngine::kFunctions);
    EXPECT_EQ(functions().load().status,
              after.loaded ? LoadStatus::kAlreadyLoaded : LoadStatus::kLoaded);
    EXPECT_TRUE(functions().status().loaded);
}

// Prune deletes only what `only` names, and refuses outright (nothing deleted) a name that is
// this build's or not a delayq library's.
TEST_F(FunctionAdminTest, PruneDeletesOnlyWhatItIsToldAndRefusesOtherNames) {
    ASSERT_EQ(functions().load().status, LoadStatus::kLoaded);
    const std::string ours = functions().status().library;
    const std::string a = "delayq_1_aaaaaaaaaaaa";
    const std::string b = "delayq_2_bbbbbbbbbbbb";
    load_raw(a);
    load_raw(b);
    load_raw("mylib");
    const auto all = libraries();
    ASSERT_EQ(all.size(), 4U);

    for (const std::string& bad : {ours, std::string("mylib"), std::string("delayq_1_ABC")}) {
        EXPECT_THROW(functions().prune({.only = {a, bad}}), InvalidArgument) << bad;
        EXPECT_EQ(libraries(), all) << bad;
    }
    EXPECT_EQ(functions().prune({.dry_run = true}).libraries, (std::vector<std::string>{a, b}));
    EXPECT_EQ(libraries(), all);
    // A name gone by then is skipped, not an error.
    EXPECT_EQ(functions().prune({.only = {a, "delayq_1_cccccccccccc"}}).libraries,
              std::vector<std::string>{a});
    std::vector<std::string> kept = {b, "mylib", ours};
    std::sort(kept.begin(), kept.end());
    EXPECT_EQ(libraries(), kept);
    EXPECT_EQ(functions().prune().libraries, std::vector<std::string>{b});
    EXPECT_TRUE(functions().status().loaded);  // this build's, untouched
}

TEST_F(FunctionAdminTest, LoadAtMaxmemoryIsOutOfMemory) {
    ASSERT_GT(fill_with_keys(server(), 1024 * 1024), 0);
    EXPECT_THROW(functions().load(), OutOfMemoryError);
    EXPECT_FALSE(functions().status().loaded);
    EXPECT_TRUE(libraries().empty());
}

TEST_F(FunctionAdminTest, RefusalsNamingTheCommandArePermissionErrors) {
    load_raw("delayq_1_aaaaaaaaaaaa");
    ASSERT_FALSE(add_acl_user(server(), "nofn", "nofn-secret", {"-function"}).is_error());
    Client limited("redis://nofn:nofn-secret@127.0.0.1:" + std::to_string(server().port()));
    try {
        limited.functions().status();
        ADD_FAILURE() << "status without FUNCTION LIST";
    } catch (const PermissionError& e) {
        EXPECT_EQ(e.command(), "FUNCTION LIST");
    }
    try {
        limited.functions().load();
        ADD_FAILURE() << "load without FUNCTION";
    } catch (const PermissionError& e) {
        EXPECT_EQ(e.command(), "FUNCTION LIST");  // it looks before it loads
    }
    EXPECT_TRUE(libraries() == std::vector<std::string>{"delayq_1_aaaaaaaaaaaa"});
}

}  // namespace
}  // namespace delayq::test
