#pragma once

#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "redis/connection.hpp"
#include "redis/node_engine.hpp"
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

// How a call was sent: as its function in the library (FCALL) or as a script (EVALSHA).
enum class ScriptVia { kFunction, kScript };

// Runs a script as its function (FCALL) where `node` runs the library, checking the library on
// `conn` before the first call; else with EVALSHA. A function found missing (FUNCTION FLUSH, a
// failover) is checked, loaded and called again once, or run as a script where the load is
// refused; NOSCRIPT (a restarted or flushed server) runs EVAL, which also caches the script.
// Error replies become exceptions: OutOfMemoryError for OOM, InvalidArgument for the scripts'
// own argument checks, RedirectedError and TransientRefusalError for a cluster's MOVED / ASK and
// the refusals that pass (run_routed sends those calls again; ReadOnlyError, one of them, only
// under Sentinel), ServerError otherwise.
Reply run_script(NodeEngine& node, Connection& conn, const ScriptSource& script,
                 std::span<const std::string> keys, const ScriptArgs& args);

// run_script in two halves, for calls pipelined on one connection: append_script queues the
// call (Connection::flush sends it), as a function only once `node` knows the library ready,
// since a check cannot run between pipelined calls; script_reply takes its reply and does the
// rest. After an error reply (a missing function, NOSCRIPT) script_reply runs more commands on
// `conn`, so no other reply may be pending on it then.
ScriptVia append_script(NodeEngine& node, Connection& conn, const ScriptSource& script,
                        std::span<const std::string> keys, const ScriptArgs& args);
Reply script_reply(NodeEngine& node, Connection& conn, const ScriptSource& script,
                   std::span<const std::string> keys, const ScriptArgs& args, ScriptVia via,
                   Reply reply);

}  // namespace delayq::detail
