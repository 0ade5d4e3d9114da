#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "api/problem.hpp"
#include "auth/scope.hpp"
#include "auth/token_table.hpp"

namespace delayq::server::routes {

// What a route needs of the caller's token.
struct Access {
    enum class Kind {
        kOpen,   // no token: /healthz, /readyz
        kQueue,  // the scope on the route's {queue}
        kAny,    // the scope, whatever queues the token covers (listings, /metrics)
        kToken,  // any token the server accepts, whatever its scopes (GET /v1/token)
    };
    Kind kind = Kind::kOpen;
    Scope scope = Scope::kRead;

    static Access open() { return {Kind::kOpen, Scope::kRead}; }
    static Access queue(Scope scope) { return {Kind::kQueue, scope}; }
    static Access any(Scope scope) { return {Kind::kAny, scope}; }
    static Access token() { return {Kind::kToken, Scope::kRead}; }
};

// The tokens the server accepts: none needed without an auth file (the server then listens
// and answers on loopback only), else the file's entries, re-read on SIGHUP.
class AuthGate {
  public:
    AuthGate() = default;  // no auth file
    // Loads the file; throws AuthFileError.
    explicit AuthGate(std::filesystem::path file);

    bool enabled() const { return file_.has_value(); }
    // Re-reads the file. On an error the tokens stay as they were, and AuthFileError says why.
    void reload();

    struct Verdict {
        std::optional<Problem> problem;  // 401 or 403, never naming the token
        std::string principal;           // the entry's name, for the access log
    };
    Verdict check(std::string_view token, const Access& access, std::string_view queue) const;
    // The entry of a token, for routes that show only the queues it covers; null without auth.
    std::shared_ptr<const TokenTable> table() const;
    // Whether a listing shows `token` a queue: every queue without an auth file, else those its
    // entry's patterns cover (none for a token the file lacks).
    std::function<bool(std::string_view queue)> shows(std::string_view token) const;

  private:
    std::optional<std::filesystem::path> file_;
    mutable std::mutex mutex_;
    std::shared_ptr<const TokenTable> table_;
};

}  // namespace delayq::server::routes
