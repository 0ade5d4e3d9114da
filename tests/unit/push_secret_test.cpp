// Standard Webhooks secrets: "whsec_" and canonical standard base64 of 24 to 64 bytes. The
// base64 texts were made with python3's base64 module from the bytes 0, 1, 2, ...
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "delayq/error.hpp"
#include "delayq/push.hpp"

namespace delayq {
namespace {

constexpr std::string_view kBytes23 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRY=";
constexpr std::string_view kBytes24 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYX";
constexpr std::string_view kBytes25 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGA==";
constexpr std::string_view kBytes26 = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBk=";
constexpr std::string_view kBytes64 =
    "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+Pw==";
constexpr std::string_view kBytes65 =
    "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+P0A=";

std::string whsec(std::string_view base64) { return "whsec_" + std::string(base64); }

// The refusal's message; empty when the secret passes.
std::string secret_refusal(const std::string& secret) {
    try {
        validate_push_secret(secret);
    } catch (const InvalidArgument& e) {
        return e.what();
    }
    return {};
}

TEST(PushSecret, AcceptsKeysOf24To64Bytes) {
    EXPECT_NO_THROW(validate_push_secret(whsec(kBytes24)));
    EXPECT_NO_THROW(validate_push_secret(whsec(kBytes25)));
    EXPECT_NO_THROW(validate_push_secret(whsec(kBytes26)));
    EXPECT_NO_THROW(validate_push_secret(whsec(kBytes64)));
    // The specification's test secret.
    EXPECT_NO_THROW(validate_push_secret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"));
}

TEST(PushSecret, RefusesKeysOutsideTheBounds) {
    EXPECT_NE(secret_refusal(whsec(kBytes23)).find("decodes to 23 bytes"), std::string::npos);
    EXPECT_NE(secret_refusal(whsec(kBytes65)).find("decodes to 65 bytes"), std::string::npos);
    EXPECT_NE(secret_refusal("whsec_").find("decodes to 0 bytes"), std::string::npos);
}

TEST(PushSecret, RefusesAnotherPrefix) {
    EXPECT_NE(secret_refusal(std::string(kBytes24)).find("must start with \"whsec_\""),
              std::string::npos);
    EXPECT_NE(secret_refusal("WHSEC_" + std::string(kBytes24)).find("must start with"),
              std::string::npos);
    EXPECT_NE(secret_refusal("whsk_" + std::string(kBytes24)).find("must start with"),
              std::string::npos);
    EXPECT_NE(secret_refusal("").find("must start with"), std::string::npos);
}

TEST(PushSecret, RefusesBase64WithoutItsPadding) {
    std::string unpadded(kBytes25);
    unpadded.resize(unpadded.size() - 2);  // "...GA"
    EXPECT_NE(secret_refusal(whsec(unpadded)).find("not padded base64"), std::string::npos);
    std::string half_padded(kBytes25);
    half_padded.pop_back();  // "...GA="
    EXPECT_NE(secret_refusal(whsec(half_padded)).find("not padded base64"), std::string::npos);
}

TEST(PushSecret, RefusesCharactersOutsideStandardBase64) {
    // base64url's digits for 62 and 63, at character 7 (the first after "whsec_") and 8.
    EXPECT_NE(secret_refusal(whsec("-" + std::string(kBytes24.substr(1))))
                  .find("character 7 is not in the base64 alphabet"),
              std::string::npos);
    EXPECT_NE(secret_refusal(whsec("A_" + std::string(kBytes24.substr(2))))
                  .find("character 8 is not in the base64 alphabet"),
              std::string::npos);
    EXPECT_NE(secret_refusal(whsec(std::string(kBytes24.substr(0, 31)) + "*"))
                  .find("character 38 is not in the base64 alphabet"),
              std::string::npos);
    EXPECT_NE(secret_refusal(whsec(std::string(kBytes24) + "\n")).find("not padded"),
              std::string::npos);
    EXPECT_NE(secret_refusal(whsec(std::string(kBytes24.substr(0, 31)) + "\n"))
                  .find("contains whitespace (character 38)"),
              std::string::npos);
    EXPECT_NE(secret_refusal(whsec(std::string(kBytes24.substr(0, 31)) + std::string(1, '\0')))
                  .find("character 38"),
              std::string::npos);
}

TEST(PushSecret, RefusesPaddingBeforeTheEnd) {
    const std::string inner =
        std::string(kBytes24.substr(0, 10)) + "=" + std::string(kBytes24.substr(11));
    EXPECT_NE(secret_refusal(whsec(inner)).find("has '=' before its end (character 17)"),
              std::string::npos);
    EXPECT_NE(secret_refusal(whsec(std::string(kBytes24.substr(0, 28)) + "====")).find("'='"),
              std::string::npos);
}

TEST(PushSecret, RefusesBitsPastTheLastByte) {
    // "GA==" and "GB==" decode to the same byte; only the first is canonical.
    std::string noncanonical(kBytes25);
    noncanonical[noncanonical.size() - 3] = 'B';
    EXPECT_NE(secret_refusal(whsec(noncanonical)).find("not canonical"), std::string::npos);
    std::string noncanonical_one(kBytes26);  // "...GBk=": 'k' is 36, its low 2 bits zero
    noncanonical_one[noncanonical_one.size() - 2] = 'l';
    EXPECT_NE(secret_refusal(whsec(noncanonical_one)).find("not canonical"), std::string::npos);
}

TEST(PushSecret, NeverQuotesTheSecret) {
    const std::vector<std::string> bad = {
        whsec(kBytes23),
        whsec(std::string(kBytes64.substr(0, 60)) + "-" + std::string(kBytes64.substr(61))),
        whsec(std::string(kBytes64.substr(0, 86))),
        std::string(kBytes64),
    };
    for (const auto& secret : bad) {
        const std::string message = secret_refusal(secret);
        ASSERT_FALSE(message.empty()) << secret;
        // No run of 8 characters of the key's text appears in the message.
        const std::string key = secret.starts_with("whsec_") ? secret.substr(6) : secret;
        for (std::size_t i = 0; i + 8 <= key.size(); ++i) {
            EXPECT_EQ(message.find(key.substr(i, 8)), std::string::npos) << message;
        }
    }
}

}  // namespace
}  // namespace delayq
