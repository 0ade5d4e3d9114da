#include "auth/lease_seal.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <delayq/error.hpp>

namespace delayq::server::auth {
// Named, not anonymous: LeaseSeal::Keyed holds these.
namespace seal_detail {

struct CtxFree {
    void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};
using Ctx = std::unique_ptr<EVP_MD_CTX, CtxFree>;

Ctx new_ctx() {
    Ctx ctx(EVP_MD_CTX_new());
    if (!ctx) throw std::bad_alloc();
    return ctx;
}

}  // namespace seal_detail

namespace {

using seal_detail::Ctx;
using seal_detail::new_ctx;

constexpr std::size_t kBlock = 64;     // SHA-256's block
constexpr std::size_t kDigest = 32;    // and digest
constexpr std::size_t kMacBytes = 16;  // 128 bits: guessing one is hopeless
constexpr std::size_t kMacChars = 22;  // base64url of 16 bytes, unpadded
constexpr char kSeparator = '.';
constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

void check(int ok) {
    if (ok != 1) throw Error("lease seal: OpenSSL's SHA-256 failed");
}

// One context a thread, reused: a MAC costs two context copies and four digest calls.
EVP_MD_CTX* work_ctx() {
    thread_local const Ctx ctx = new_ctx();
    return ctx.get();
}

std::string base64url(const std::array<unsigned char, kMacBytes>& bytes) {
    std::string out;
    out.reserve(kMacChars);
    std::uint32_t acc = 0;
    int bits = 0;
    for (const unsigned char b : bytes) {
        acc = (acc << 8U) | b;
        bits += 8;
        while (bits >= 6) {
            bits -= 6;
            out.push_back(kAlphabet[(acc >> static_cast<unsigned>(bits)) & 0x3fU]);
        }
    }
    if (bits > 0) out.push_back(kAlphabet[(acc << static_cast<unsigned>(6 - bits)) & 0x3fU]);
    return out;
}

}  // namespace

// HMAC (RFC 2104) with the key's two padded blocks hashed once, here, rather than per lease.
struct LeaseSeal::Keyed {
    Ctx inner = new_ctx();
    Ctx outer = new_ctx();

    std::array<unsigned char, kMacBytes> mac(std::string_view queue, std::string_view lease) const {
        EVP_MD_CTX* w = work_ctx();
        std::array<unsigned char, kDigest> inner_hash{};
        std::array<unsigned char, kDigest> full{};
        // The queue name cannot hold a NUL, so the NUL separates the two unambiguously.
        constexpr char kNul = '\0';
        check(EVP_MD_CTX_copy_ex(w, inner.get()));
        check(EVP_DigestUpdate(w, queue.data(), queue.size()));
        check(EVP_DigestUpdate(w, &kNul, 1));
        check(EVP_DigestUpdate(w, lease.data(), lease.size()));
        check(EVP_DigestFinal_ex(w, inner_hash.data(), nullptr));
        check(EVP_MD_CTX_copy_ex(w, outer.get()));
        check(EVP_DigestUpdate(w, inner_hash.data(), inner_hash.size()));
        check(EVP_DigestFinal_ex(w, full.data(), nullptr));
        std::array<unsigned char, kMacBytes> out{};
        std::copy_n(full.begin(), kMacBytes, out.begin());
        return out;
    }
};

LeaseSeal::LeaseSeal(std::string_view key) : keyed_(std::make_unique<Keyed>()) {
    if (key.size() < kMacBytes) {
        throw InvalidArgument("a lease key needs at least " + std::to_string(kMacBytes) +
                              " bytes, not " + std::to_string(key.size()));
    }
    std::array<unsigned char, kBlock> block{};
    if (key.size() > kBlock) {
        unsigned int size = 0;
        check(EVP_Digest(key.data(), key.size(), block.data(), &size, EVP_sha256(), nullptr));
    } else {
        std::copy(key.begin(), key.end(), block.begin());
    }
    std::array<unsigned char, kBlock> pad{};
    const auto start = [&](EVP_MD_CTX* ctx, unsigned char with) {
        for (std::size_t i = 0; i < kBlock; ++i) pad[i] = block[i] ^ with;
        check(EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr));
        check(EVP_DigestUpdate(ctx, pad.data(), pad.size()));
    };
    start(keyed_->inner.get(), 0x36);
    start(keyed_->outer.get(), 0x5c);
    OPENSSL_cleanse(block.data(), block.size());
    OPENSSL_cleanse(pad.data(), pad.size());
}

LeaseSeal::~LeaseSeal() = default;

std::string LeaseSeal::seal(std::string_view queue, const Lease& lease) const {
    std::string out = lease.to_string();
    const std::string mac = base64url(keyed_->mac(queue, out));
    out.reserve(out.size() + 1 + kMacChars);
    out.push_back(kSeparator);
    out.append(mac);
    return out;
}

namespace {

// The library's lease in `text`: all of it, or what comes before ".<MAC>".
std::string_view raw_lease(std::string_view text, bool& sealed) {
    sealed =
        text.size() > kMacChars + 1 && text[text.size() - kMacChars - 1] == kSeparator &&
        text.substr(text.size() - kMacChars).find_first_not_of(kAlphabet) == std::string_view::npos;
    return sealed ? text.substr(0, text.size() - kMacChars - 1) : text;
}

}  // namespace

bool LeaseSeal::is_lease(std::string_view text) {
    bool sealed = false;
    return Lease::parse(raw_lease(text, sealed)).has_value();
}

std::optional<LeaseSeal::Opened> LeaseSeal::open(std::string_view queue,
                                                 std::string_view text) const {
    bool sealed = false;
    const std::string_view raw = raw_lease(text, sealed);
    std::optional<Lease> lease = Lease::parse(raw);
    if (!lease) return std::nullopt;
    if (!sealed) return Opened{std::move(*lease), false};
    const std::string expected = base64url(keyed_->mac(queue, raw));
    const bool authentic =
        CRYPTO_memcmp(expected.data(), text.data() + raw.size() + 1, kMacChars) == 0;
    return Opened{std::move(*lease), authentic};
}

}  // namespace delayq::server::auth
