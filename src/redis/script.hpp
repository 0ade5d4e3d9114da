#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "redis/connection.hpp"
#include "scripts.hpp"

namespace delayq::detail {

// Arguments of one script call. Views must outlive the call; numbers are formatted and owned.
class ScriptArgs {
  public:
    void add(std::string_view view) { views_.push_back(view); }
    void add(std::int64_t number) { views_.push_back(owned_.emplace_back(std::to_string(number))); }
    void add_owned(std::string text) { views_.push_back(owned_.emplace_back(std::move(text))); }
    std::span<const std::string_view> views() const { return views_; }
    std::size_t size() const { return views_.size(); }

  private:
    std::vector<std::string_view> views_;
    std::deque<std::string> owned_;  // a deque keeps earlier strings in place as it grows
};

// Runs a script with EVALSHA, or on NOSCRIPT (a restarted or flushed server) with EVAL, which
// also caches it. Error replies become exceptions: OutOfMemoryError for OOM, InvalidArgument for
// the scripts' own argument checks, ServerError otherwise.
Reply run_script(Connection& conn, const ScriptSource& script, std::span<const std::string> keys,
                 const ScriptArgs& args);

// run_script in two halves, for calls pipelined on one connection: append_script queues the
// EVALSHA (Connection::flush sends it); script_reply takes its reply and does the rest. On
// NOSCRIPT, script_reply runs EVAL on `conn`, so no other reply may be pending on it then
// (is_noscript tells beforehand).
void append_script(Connection& conn, const ScriptSource& script, std::span<const std::string> keys,
                   const ScriptArgs& args);
Reply script_reply(Connection& conn, const ScriptSource& script, std::span<const std::string> keys,
                   const ScriptArgs& args, Reply reply);
bool is_noscript(const Reply& reply);

}  // namespace delayq::detail
