#pragma once

#include <delayq/error.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "auth/queue_pattern.hpp"
#include "auth/scope.hpp"

namespace delayq::server {

// The auth file is not readable, or one of its lines is not an entry.
class AuthFileError : public Error {
  public:
    using Error::Error;
};

// One line of the auth file: `NAME SHA256-HEX SCOPES PATTERNS`, scopes and patterns separated
// by commas. The file holds only hashes: a leaked file grants nothing.
struct TokenEntry {
    std::string name;
    std::string sha256_hex;  // of the token: 64 lowercase hex digits
    std::vector<Scope> scopes;
    std::vector<QueuePattern> queues;

    bool has_scope(Scope scope) const;  // admin implies read and schedule
    bool covers(std::string_view queue) const;
    std::string line() const;  // as the file holds it
};

enum class AuthDecision {
    kAllowed,
    kUnauthorized,  // no token, or one no entry holds: 401
    kForbidden,     // a known token without the scope or the queue: 403
};

class TokenTable {
  public:
    // One entry a line; blank lines and lines starting with `#` are skipped. Throws
    // AuthFileError naming the line's number and what is wrong with it (never the line itself,
    // which holds a hash). Names must be unique.
    static TokenTable parse(std::string_view text);

    // The entry of a presented token, or nullptr. Every entry's hash is compared in constant
    // time and none is skipped, so the answer's timing tells nothing about the hashes.
    const TokenEntry* find(std::string_view token) const;

    // Whether the token may act with `scope` on `queue`.
    AuthDecision authorize(std::string_view token, Scope scope, std::string_view queue) const;
    // The same for requests that name no queue (listing queues, /metrics): the scope alone; the
    // caller shows only the queues the entry covers.
    AuthDecision authorize_any(std::string_view token, Scope scope) const;

    const std::vector<TokenEntry>& entries() const { return entries_; }

  private:
    std::vector<TokenEntry> entries_;
};

// The SHA-256 of a token as the auth file holds it.
std::string token_sha256_hex(std::string_view token);

// A fresh random token (256 bits from the operating system's generator, as text).
std::string new_token();

}  // namespace delayq::server
