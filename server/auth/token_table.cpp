#include "auth/token_table.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <set>

namespace delayq::server {
namespace {

constexpr std::string_view kHex = "0123456789abcdef";
constexpr std::size_t kHashHexLen = 64;
// Tokens carry a prefix, so that a secret scanner (and a human) can tell what leaked.
constexpr std::string_view kTokenPrefix = "dqt_";

std::string to_hex(const unsigned char* bytes, std::size_t n) {
    std::string out;
    out.reserve(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
        out += kHex[bytes[i] >> 4];
        out += kHex[bytes[i] & 0xf];
    }
    return out;
}

std::vector<std::string_view> split(std::string_view text, char sep) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t end = text.find(sep, start);
        out.push_back(text.substr(start, end - start));
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
    return out;
}

std::vector<std::string_view> fields(std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
        if (i > start) out.push_back(line.substr(start, i - start));
    }
    return out;
}

[[noreturn]] void bad_line(std::size_t number, const std::string& why) {
    throw AuthFileError("auth file line " + std::to_string(number) + ": " + why);
}

TokenEntry parse_entry(std::string_view line, std::size_t number) {
    const auto f = fields(line);
    if (f.size() != 4) bad_line(number, "expected NAME SHA256-HEX SCOPES PATTERNS");
    TokenEntry e;
    e.name = f[0];
    e.sha256_hex = f[1];
    if (e.sha256_hex.size() != kHashHexLen ||
        e.sha256_hex.find_first_not_of(kHex) != std::string::npos) {
        bad_line(number, "the hash must be 64 lowercase hex digits (a SHA-256)");
    }
    for (std::string_view s : split(f[2], ',')) {
        const auto scope = parse_scope(s);
        if (!scope) bad_line(number, "unknown scope (" + scope_names() + ")");
        if (std::find(e.scopes.begin(), e.scopes.end(), *scope) == e.scopes.end()) {
            e.scopes.push_back(*scope);
        }
    }
    for (std::string_view p : split(f[3], ',')) {
        auto pattern = QueuePattern::parse(p);
        if (!pattern) {
            bad_line(number,
                     "bad queue pattern (a name, a prefix ending in *, or *; \\* is a star)");
        }
        e.queues.push_back(std::move(*pattern));
    }
    return e;
}

}  // namespace

bool TokenEntry::has_scope(Scope scope) const {
    const auto holds = [&](Scope s) {
        return std::find(scopes.begin(), scopes.end(), s) != scopes.end();
    };
    const bool admin_implies = scope == Scope::kRead || scope == Scope::kSchedule;
    return holds(scope) || (admin_implies && holds(Scope::kAdmin));
}

bool TokenEntry::covers(std::string_view queue) const {
    return std::any_of(queues.begin(), queues.end(),
                       [&](const QueuePattern& p) { return p.matches(queue); });
}

std::string TokenEntry::line() const {
    std::string out = name + ' ' + sha256_hex + ' ';
    for (std::size_t i = 0; i < scopes.size(); ++i) {
        if (i > 0) out += ',';
        out += scope_name(scopes[i]);
    }
    out += ' ';
    for (std::size_t i = 0; i < queues.size(); ++i) {
        if (i > 0) out += ',';
        out += queues[i].text();
    }
    return out;
}

TokenTable TokenTable::parse(std::string_view text) {
    TokenTable table;
    std::set<std::string, std::less<>> names;
    std::size_t number = 0;
    for (std::string_view line : split(text, '\n')) {
        ++number;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        const auto f = fields(line);
        if (f.empty() || f[0].starts_with('#')) continue;
        TokenEntry e = parse_entry(line, number);
        if (!names.insert(e.name).second) bad_line(number, "the name is used by an earlier line");
        table.entries_.push_back(std::move(e));
    }
    return table;
}

const TokenEntry* TokenTable::find(std::string_view token) const {
    const std::string presented = token_sha256_hex(token);
    const TokenEntry* found = nullptr;
    for (const auto& e : entries_) {
        // Both are 64 hex digits (checked when parsed); no entry is skipped once one matched.
        if (CRYPTO_memcmp(presented.data(), e.sha256_hex.data(), kHashHexLen) == 0) found = &e;
    }
    return found;
}

AuthDecision TokenTable::authorize(std::string_view token, Scope scope,
                                   std::string_view queue) const {
    const TokenEntry* e = token.empty() ? nullptr : find(token);
    if (!e) return AuthDecision::kUnauthorized;
    return e->has_scope(scope) && e->covers(queue) ? AuthDecision::kAllowed
                                                   : AuthDecision::kForbidden;
}

AuthDecision TokenTable::authorize_any(std::string_view token, Scope scope) const {
    const TokenEntry* e = token.empty() ? nullptr : find(token);
    if (!e) return AuthDecision::kUnauthorized;
    return e->has_scope(scope) ? AuthDecision::kAllowed : AuthDecision::kForbidden;
}

std::string token_sha256_hex(std::string_view token) {
    // Fetched once: EVP_sha256() makes OpenSSL 3 look the algorithm up again on every digest,
    // which was most of the cost of hashing a token a request.
    static EVP_MD* const sha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
    unsigned int len = 0;
    if (sha256 == nullptr ||
        EVP_Digest(token.data(), token.size(), digest.data(), &len, sha256, nullptr) != 1) {
        throw Error("SHA-256 failed (OpenSSL)");
    }
    return to_hex(digest.data(), len);
}

std::string new_token() {
    std::array<unsigned char, 32> bytes{};
    if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
        throw Error("no random bytes for a token (OpenSSL RAND_bytes)");
    }
    return std::string(kTokenPrefix) + to_hex(bytes.data(), bytes.size());
}

}  // namespace delayq::server
