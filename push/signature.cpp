#include "push/signature.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <array>
#include <memory>
#include <new>
#include <utility>

#include "delayq/error.hpp"
#include "delayq/push.hpp"
#include "json/payload.hpp"

namespace delayq::push {
namespace {

constexpr std::size_t kSecretPrefixBytes = 6;  // "whsec_"
constexpr std::size_t kHmacBytes = 32;         // SHA-256
constexpr std::size_t kIdDigestBytes = 16;     // of webhook_id's SHA-256

void check(int ok, const char* what) {
    if (ok != 1) throw Error(std::string("push signature: OpenSSL's ") + what + " failed");
}

const unsigned char* bytes_of(std::string_view text) {
    return reinterpret_cast<const unsigned char*>(text.data());
}

// A secret validate_push_secret accepted, decoded: canonical base64, as payloads are.
std::string decode_key(std::string_view secret) {
    auto key = json::base64_decode(secret.substr(kSecretPrefixBytes));
    if (!key) throw Error("push signature: a secret is not base64");
    return std::move(*key);
}

EVP_MAC* hmac() {
    static EVP_MAC* const mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
    if (mac == nullptr) throw Error("push signature: OpenSSL has no HMAC");
    return mac;
}

struct MacCtxFree {
    void operator()(EVP_MAC_CTX* ctx) const { EVP_MAC_CTX_free(ctx); }
};
struct MdCtxFree {
    void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

std::string lower_hex(const unsigned char* data, std::size_t size) {
    constexpr std::string_view kDigits = "0123456789abcdef";
    std::string out;
    out.reserve(2 * size);
    for (std::size_t i = 0; i < size; ++i) {
        out.push_back(kDigits[data[i] >> 4U]);
        out.push_back(kDigits[data[i] & 0xfU]);
    }
    return out;
}

}  // namespace

WebhookSigner::WebhookSigner(const std::vector<std::string>& secrets) {
    keys_.reserve(secrets.size());
    for (const auto& secret : secrets) {
        validate_push_secret(secret);
        keys_.push_back(decode_key(secret));
    }
}

std::string WebhookSigner::sign(std::string_view msg_id, std::int64_t unix_seconds,
                                std::string_view body) const {
    if (msg_id.find('.') != std::string_view::npos) {
        throw InvalidArgument("a webhook id must not contain '.'");
    }
    const std::string timestamp = std::to_string(unix_seconds);
    std::string header;
    for (const auto& key : keys_) {
        const std::unique_ptr<EVP_MAC_CTX, MacCtxFree> ctx(EVP_MAC_CTX_new(hmac()));
        if (!ctx) throw std::bad_alloc();
        char digest_name[] = "SHA256";
        const OSSL_PARAM params[] = {
            OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest_name, 0),
            OSSL_PARAM_construct_end()};
        check(EVP_MAC_init(ctx.get(), bytes_of(key), key.size(), params), "HMAC");
        // The signed text, id.timestamp.body, fed in parts: the body is not copied.
        for (const std::string_view part :
             {msg_id, std::string_view("."), std::string_view(timestamp), std::string_view("."),
              body}) {
            check(EVP_MAC_update(ctx.get(), bytes_of(part), part.size()), "HMAC");
        }
        std::array<unsigned char, kHmacBytes> mac{};
        std::size_t size = 0;
        check(EVP_MAC_final(ctx.get(), mac.data(), &size, mac.size()), "HMAC");
        if (!header.empty()) header.push_back(' ');
        header += "v1,";
        header +=
            json::base64_encode(std::string_view(reinterpret_cast<const char*>(mac.data()), size));
    }
    return header;
}

std::string webhook_id(std::string_view queue, std::string_view message_id) {
    const std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
    if (!ctx) throw std::bad_alloc();
    // The queue's length first, so that no other queue and id run together into the same bytes.
    std::array<unsigned char, 8> length{};
    for (std::size_t i = 0; i < length.size(); ++i) {
        length[i] = static_cast<unsigned char>(queue.size() >> (8 * (length.size() - 1 - i)));
    }
    check(EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr), "SHA-256");
    check(EVP_DigestUpdate(ctx.get(), length.data(), length.size()), "SHA-256");
    check(EVP_DigestUpdate(ctx.get(), queue.data(), queue.size()), "SHA-256");
    check(EVP_DigestUpdate(ctx.get(), message_id.data(), message_id.size()), "SHA-256");
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    check(EVP_DigestFinal_ex(ctx.get(), digest.data(), nullptr), "SHA-256");
    return "msg_" + lower_hex(digest.data(), kIdDigestBytes);
}

}  // namespace delayq::push
