// Standard Webhooks secrets as a target's owner writes them: "whsec_" and the standard base64 of
// the HMAC key. Only checked here (the library never signs); the pushers decode them. A secret
// must never reach a message, so no error below quotes any of it.
#include <string>

#include "delayq/error.hpp"
#include "delayq/push.hpp"

namespace delayq {
namespace {

constexpr std::string_view kSecretPrefix = "whsec_";
// The specification's bounds for a symmetric key: at least 192 bits, at most 512.
constexpr std::size_t kMinSecretBytes = 24;
constexpr std::size_t kMaxSecretBytes = 64;

// The 6-bit value of a standard base64 digit; -1 for any other character.
int base64_value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

[[noreturn]] void refuse(const std::string& why) { throw InvalidArgument("push secret " + why); }

// The bytes `text` decodes to, checking that it is canonical standard base64: padded to whole
// groups of four, '=' only at the end, and no bits set past the last byte (which decoders
// ignore, so that two spellings would otherwise hold one key and a target compare unequal to
// itself). `offset` is where text starts in the secret, for the positions in messages.
std::size_t decoded_bytes(std::string_view text, std::size_t offset) {
    if (text.size() % 4 != 0) {
        refuse(
            "is not padded base64 after \"whsec_\": base64 comes in groups of 4 characters, "
            "padded with '='");
    }
    std::size_t padding = 0;
    if (!text.empty() && text.back() == '=') padding = text[text.size() - 2] == '=' ? 2 : 1;
    const std::size_t digits = text.size() - padding;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (i < digits ? base64_value(c) >= 0 : c == '=') continue;
        const std::string where = "character " + std::to_string(offset + i + 1);
        if (c == '=') refuse("has '=' before its end (" + where + ")");
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            refuse("contains whitespace (" + where + ")");
        }
        refuse("is not standard base64 after \"whsec_\": " + where +
               " is not in the base64 alphabet");
    }
    if (padding > 0) {
        // The last digit's bits past the data: 4 of them before "==", 2 before "=".
        const int spare_mask = padding == 2 ? 0xf : 0x3;
        if ((base64_value(text[digits - 1]) & spare_mask) != 0) {
            refuse("is not canonical base64: its last digit sets bits past the end of the key");
        }
    }
    return text.size() / 4 * 3 - padding;
}

}  // namespace

void validate_push_secret(std::string_view secret) {
    if (!secret.starts_with(kSecretPrefix)) {
        refuse("must start with \"whsec_\" (a Standard Webhooks secret)");
    }
    const std::size_t bytes =
        decoded_bytes(secret.substr(kSecretPrefix.size()), kSecretPrefix.size());
    if (bytes < kMinSecretBytes || bytes > kMaxSecretBytes) {
        refuse("decodes to " + std::to_string(bytes) + " bytes; a key has " +
               std::to_string(kMinSecretBytes) + " to " + std::to_string(kMaxSecretBytes));
    }
}

}  // namespace delayq
