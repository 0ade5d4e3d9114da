// Standard Webhooks signatures and webhook ids. The first vector is the specification's own
// (libraries/javascript/src/webhook.test.ts, "sign function works", in
// github.com/standard-webhooks/standard-webhooks); the others were computed with python3's hmac,
// hashlib and base64 modules.
#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>
#include <vector>

#include "delayq/error.hpp"
#include "push/signature.hpp"

namespace delayq::push {
namespace {

constexpr std::string_view kSpecSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
constexpr std::string_view kSpecId = "msg_p5jXN8AQM9LWM0D4loKWxJek";
constexpr std::int64_t kSpecTimestamp = 1614265330;
constexpr std::string_view kSpecBody = R"({"test": 2432232314})";
constexpr std::string_view kSpecSignature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

// 25 bytes (its base64 ends in "=="), and 64, the most a key may have.
constexpr std::string_view kSecret25 = "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGA==";
constexpr std::string_view kSecret64 =
    "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+"
    "Pw==";

WebhookSigner signer_of(std::vector<std::string_view> secrets) {
    return WebhookSigner(std::vector<std::string>(secrets.begin(), secrets.end()));
}

TEST(PushSignature, MatchesTheSpecificationsVector) {
    EXPECT_EQ(signer_of({kSpecSecret}).sign(kSpecId, kSpecTimestamp, kSpecBody), kSpecSignature);
}

TEST(PushSignature, DecodesPaddedKeysWhole) {
    EXPECT_EQ(signer_of({kSecret25}).sign(kSpecId, kSpecTimestamp, kSpecBody),
              "v1,O6Os8pxiEeEz61IPEK5SMabYPFAPKauQxtXWfFUPYSs=");
    EXPECT_EQ(signer_of({kSecret64}).sign(kSpecId, kSpecTimestamp, kSpecBody),
              "v1,LZ5zuwHTqQH3VM8ERUusjzVQq1FXzemvpR8Mk7Ivp5c=");
}

TEST(PushSignature, SignsEmptyAndBinaryBodies) {
    const WebhookSigner signer = signer_of({kSecret25});
    EXPECT_EQ(signer.sign("msg_x", 0, ""), "v1,qrpHvlDW6cy4Ep+zrXoV/QFgLgrRqUb7zpc4yoiaGsc=");
    EXPECT_EQ(signer.sign("msg_x", 1700000000, std::string_view("\0\xff binary", 9)),
              "v1,meYYsZ7UqY7OFotOv4jdNBhSYTPQRffBEN+gMGdiT+g=");
}

TEST(PushSignature, SignsWithEverySecretInOrder) {
    const WebhookSigner signer = signer_of({kSecret64, kSpecSecret, kSecret25});
    EXPECT_EQ(signer.size(), 3U);
    EXPECT_EQ(signer.sign(kSpecId, kSpecTimestamp, kSpecBody),
              "v1,LZ5zuwHTqQH3VM8ERUusjzVQq1FXzemvpR8Mk7Ivp5c= " + std::string(kSpecSignature) +
                  " v1,O6Os8pxiEeEz61IPEK5SMabYPFAPKauQxtXWfFUPYSs=");
}

TEST(PushSignature, NoSecretsSignNothing) {
    const WebhookSigner signer(std::vector<std::string>{});
    EXPECT_EQ(signer.size(), 0U);
    EXPECT_EQ(signer.sign(kSpecId, kSpecTimestamp, kSpecBody), "");
}

TEST(PushSignature, ChangesWithEveryPartOfTheSignedText) {
    const WebhookSigner signer = signer_of({kSpecSecret});
    EXPECT_NE(signer.sign("msg_p5jXN8AQM9LWM0D4loKWxJeK", kSpecTimestamp, kSpecBody),
              kSpecSignature);
    EXPECT_NE(signer.sign(kSpecId, kSpecTimestamp + 1, kSpecBody), kSpecSignature);
    EXPECT_NE(signer.sign(kSpecId, kSpecTimestamp, R"({"test": 2432232315})"), kSpecSignature);
}

TEST(PushSignature, RefusesBadSecretsWithoutQuotingThem) {
    const std::string bad = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaS";  // 31 characters
    try {
        WebhookSigner signer(std::vector<std::string>{std::string(kSpecSecret), bad});
        ADD_FAILURE() << "a bad secret was taken";
    } catch (const InvalidArgument& e) {
        EXPECT_EQ(std::string(e.what()).find("MfKQ9r8G"), std::string::npos) << e.what();
    }
    EXPECT_THROW(signer_of({"MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}), InvalidArgument);
}

TEST(PushSignature, RefusesAnIdWithADot) {
    EXPECT_THROW(signer_of({kSpecSecret}).sign("msg_a.1", kSpecTimestamp, kSpecBody),
                 InvalidArgument);
}

TEST(PushWebhookId, IsFixedForAQueueAndAnId) {
    // Pinned: a pusher of another version retrying the message must send the same id.
    EXPECT_EQ(webhook_id("orders", "42"), "msg_c09fcdf6794a8f0b0b3d4a017c9470d2");
    EXPECT_EQ(webhook_id("orders", "42"), webhook_id("orders", "42"));
}

TEST(PushWebhookId, DiffersAcrossQueuesAndIds) {
    EXPECT_EQ(webhook_id("a", "bc"), "msg_e98bc483cc6af9ccf82bc23e481a128c");
    EXPECT_EQ(webhook_id("ab", "c"), "msg_290a3daa9b49526a2ed7352cd7f5e69c");
    std::set<std::string> ids;
    for (const char* queue : {"q", "q2", "orders"}) {
        for (const char* id : {"1", "2", "schedule:daily:1700000000000", ""}) {
            ids.insert(webhook_id(queue, id));
        }
    }
    EXPECT_EQ(ids.size(), 12U);
}

TEST(PushWebhookId, IsHeaderSafeWhateverTheNames) {
    const std::regex shape("msg_[0-9a-f]{32}");
    for (const std::string& id :
         {std::string("a.b"), std::string("with space"), std::string(200, '.'),
          std::string("\r\nX-Injected: 1"), std::string(1, '\0')}) {
        const std::string webhook = webhook_id(std::string(200, 'q'), id);
        EXPECT_TRUE(std::regex_match(webhook, shape)) << webhook;
    }
}

}  // namespace
}  // namespace delayq::push
