#include "redis/node_engine.hpp"

#include "delayq/error.hpp"
#include "log.hpp"
#include "redis/function_load.hpp"

namespace delayq::detail {

bool NodeEngine::use_functions(Connection& conn) {
    if (choice_ == ScriptEngine::kScripts) return false;
    State state = state_.load();
    if (state == State::kReady) return true;
    std::lock_guard lock(mutex_);
    state = state_.load();
    if (state == State::kReady) return true;
    if (state == State::kRefused) {
        if (choice_ == ScriptEngine::kFunctions) throw ConfigurationError(reason_);
        return false;
    }
    const LibraryCheck check = ensure_library(conn, library_);
    switch (check.outcome) {
        case LibraryCheck::Outcome::kReady:
            return settle(State::kReady, {});
        case LibraryCheck::Outcome::kMismatch:
            // Functions are called by name: a library of our name with other code (a forged
            // one, or a build that differs from this one) must never run in our place.
            return settle(State::kRefused,
                          check.detail +
                              "; not called (FUNCTION DELETE it if no client of this build "
                              "loaded it)",
                          true);
        case LibraryCheck::Outcome::kRefused:
            break;
    }
    return settle(State::kRefused,
                  "the server refused the function library (" + check.detail + ")");
}

bool NodeEngine::settle(State state, const std::string& why, bool alarming) {
    state_.store(state);
    if (state == State::kReady) {
        reason_.clear();
        return true;
    }
    reason_ = why;
    if (choice_ == ScriptEngine::kFunctions) throw ConfigurationError(reason_);
    if (logged_ != why) {
        // A refusal is the server's configuration, and EVALSHA serves; another library under
        // our name is worth an operator's look.
        log().log(alarming ? spdlog::level::warn : spdlog::level::info,
                  "delayq: running by EVALSHA, not the function library {}: {}", library_.name,
                  why);
        logged_ = why;
    }
    return false;
}

void NodeEngine::function_missing() {
    State ready = State::kReady;
    state_.compare_exchange_strong(ready, State::kUnknown);
}

void NodeEngine::refuse(const std::string& why) {
    std::lock_guard lock(mutex_);
    settle(State::kRefused, why);
}

void NodeEngine::reconnected() {
    State refused = State::kRefused;
    state_.compare_exchange_strong(refused, State::kUnknown);
}

EngineStatus NodeEngine::status() const {
    EngineStatus out;
    out.library = library_.name;
    if (choice_ == ScriptEngine::kScripts) {
        out.reason = "ClientOptions::engine is ScriptEngine::kScripts";
        return out;
    }
    std::lock_guard lock(mutex_);
    switch (state_.load()) {
        case State::kReady:
            out.mode = ScriptEngine::kFunctions;
            break;
        case State::kRefused:
            out.reason = reason_;
            break;
        case State::kUnknown:
            out.reason = "not checked yet";
            break;
    }
    return out;
}

}  // namespace delayq::detail
