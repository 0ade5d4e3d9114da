#pragma once

#include <atomic>
#include <mutex>
#include <string>

#include "delayq/options.hpp"
#include "redis/connection.hpp"
#include "scripts.hpp"

namespace delayq::detail {

// What one Redis node runs delayq's operations with: the function library (FCALL) once
// ensure_library found it ready there, else the scripts (EVALSHA). Shared by every connection
// to the node; thread-safe. One per connection pool, so a cluster client keeps one per primary.
class NodeEngine {
  public:
    NodeEngine(ScriptEngine choice, const FunctionLibrary& library)
        : choice_(choice), library_(library) {}

    // Whether to call functions, checking the node first (on `conn`, which must have no reply
    // pending) when it is not yet known. With ScriptEngine::kFunctions a refusal throws
    // ConfigurationError; with kAuto it is logged once and the answer is false.
    bool use_functions(Connection& conn);
    // Whether functions are known ready, without a check: for calls pipelined behind others,
    // which cannot run a command of their own.
    bool functions_ready() const { return state_.load() == State::kReady; }
    // A call found no function (FUNCTION FLUSH, or a failover to a replica that missed the
    // load): the next use_functions checks again.
    void function_missing();
    // The user may not FCALL (NOPERM), though FUNCTION LIST and LOAD passed.
    void refuse(const std::string& why);
    // A new connection to the node: one that refused may allow functions now (a restart, an
    // ACL or memory change), so the next use_functions checks again.
    void reconnected();

    EngineStatus status() const;
    const FunctionLibrary& library() const { return library_; }

  private:
    enum class State { kUnknown, kReady, kRefused };

    // Takes the outcome of a check; returns use_functions' answer. Needs mutex_. A refusal is
    // logged once, as a warning when `alarming`.
    bool settle(State state, const std::string& why, bool alarming = false);

    const ScriptEngine choice_;
    const FunctionLibrary& library_;
    std::atomic<State> state_{State::kUnknown};
    mutable std::mutex mutex_;  // one check at a time; guards reason_ and logged_
    std::string reason_;        // why scripts, while kRefused
    // The refusal logged last: a node that refuses again after each reconnect (a user who may
    // load but not call) is logged once, not per connection.
    std::string logged_;
};

}  // namespace delayq::detail
