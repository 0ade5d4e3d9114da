// The service's lease MAC: what it takes as genuine, and what it answers as lost or refuses.
#include "auth/lease_seal.hpp"

#include <gtest/gtest.h>

#include <delayq/error.hpp>
#include <fstream>
#include <string>

#include "auth/lease_key.hpp"
#include "support/fixture.hpp"

namespace delayq::test {
namespace {

using server::auth::LeaseSeal;

const std::string kKey(32, 'k');

TEST(LeaseSealTest, OnlyTheSealedLeaseOfItsQueueUnderTheSameKeyIsAuthentic) {
    const LeaseSeal seal(kKey);
    const Lease lease("order 1.x", 42);
    const std::string sealed = seal.seal("orders", lease);
    EXPECT_TRUE(sealed.starts_with(lease.to_string() + "."));

    const auto opened = LeaseSeal(kKey).open("orders", sealed);  // another server, same key
    ASSERT_TRUE(opened);
    EXPECT_TRUE(opened->authentic);
    EXPECT_EQ(opened->lease, lease);

    const auto is_lost = [](const std::optional<LeaseSeal::Opened>& o) {
        return o.has_value() && !o->authentic;
    };
    EXPECT_TRUE(is_lost(seal.open("orders-eu", sealed))) << "sealed for another queue";
    EXPECT_TRUE(is_lost(LeaseSeal(std::string(32, 'j')).open("orders", sealed))) << "other key";
    EXPECT_TRUE(is_lost(seal.open("orders", lease.to_string()))) << "no MAC: the raw lease";
    std::string flipped = sealed;
    flipped.back() = flipped.back() == 'A' ? 'B' : 'A';
    EXPECT_TRUE(is_lost(seal.open("orders", flipped)));
    // The MAC covers the whole lease: the same MAC on the next sequence number is no lease.
    const std::string next = seal.seal("orders", Lease("order 1.x", 43));
    EXPECT_TRUE(is_lost(
        seal.open("orders", next.substr(0, next.size() - 22) + sealed.substr(sealed.size() - 22))));

    // Each thread keeps its MAC keyed for the last seal it used: seals used in turns still
    // give each its own MAC, the same every time.
    const LeaseSeal other(std::string(32, 'j'));
    const std::string by_other = other.seal("orders", lease);
    EXPECT_NE(by_other, sealed);
    EXPECT_EQ(seal.seal("orders", lease), sealed);
    EXPECT_EQ(other.seal("orders", lease), by_other);
    EXPECT_EQ(seal.seal("orders", lease), sealed);

    EXPECT_FALSE(seal.open("orders", "nope")) << "no lease at all: a 400";
    EXPECT_FALSE(seal.open("orders", "nope." + sealed.substr(sealed.size() - 22)));
    EXPECT_THROW(LeaseSeal(std::string(15, 'k')), InvalidArgument);
}

using LeaseKeyTest = RedisTest;

// Without a file, every server on the Redis gets the one key made by the first (SET NX); a file
// gives its own bytes, and a short file is refused.
TEST_F(LeaseKeyTest, ServersOnOneRedisShareTheKeyAndAFileOverridesIt) {
    server::auth::LeaseKey first(std::nullopt, client());
    server::auth::LeaseKey second(std::nullopt, Client(server().url()));
    const std::string sealed = first.seal().seal("q", Lease("m", 1));
    EXPECT_TRUE(second.seal().open("q", sealed)->authentic);
    EXPECT_EQ(server().command({"STRLEN", "dq:shared-secret"}).integer, 64);

    const std::string path = testing::TempDir() + "lease-key-test.key";
    std::ofstream(path) << std::string(40, 'f') << "\n";
    server::auth::LeaseKey from_file(path, client());
    EXPECT_FALSE(from_file.seal().open("q", sealed)->authentic);
    EXPECT_TRUE(from_file.seal()
                    .open("q", LeaseSeal(std::string(40, 'f')).seal("q", Lease("m", 1)))
                    ->authentic);
    std::ofstream(path) << "short\n";
    EXPECT_THROW(server::auth::LeaseKey(path, client()), InvalidArgument);
}

// A Redis user without the grant of `delayq acl --serve`: the lease routes answer 503 naming
// the grant (ConfigurationError), not a 500, and the key is read once the grant is there.
TEST_F(LeaseKeyTest, AUserRefusedTheKeyGetsAnErrorNamingTheGrant) {
    ASSERT_FALSE(server()
                     .command({"ACL", "SETUSER", "api", "on", ">secret-pw", "~dq:{*", "+@all"})
                     .is_error());
    server::auth::LeaseKey key(std::nullopt,
                               Client("redis://api@127.0.0.1:" + std::to_string(server().port()),
                                      ClientOptions{.password = "secret-pw"}));
    try {
        key.seal();
        ADD_FAILURE() << "the key was read without the grant";
    } catch (const ConfigurationError& e) {
        EXPECT_NE(std::string(e.what()).find("delayq acl --serve"), std::string::npos) << e.what();
    }
    EXPECT_EQ(server().command({"EXISTS", "dq:shared-secret"}).integer, 0);
    ASSERT_FALSE(server().command({"ACL", "SETUSER", "api", "%RW~dq:shared-secret"}).is_error());
    EXPECT_EQ(key.seal().seal("q", Lease("m", 1)),
              server::auth::LeaseSeal(client().shared_secret()).seal("q", Lease("m", 1)));
}

}  // namespace
}  // namespace delayq::test
