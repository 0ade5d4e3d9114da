#pragma once

#include <optional>
#include <string>

#include "delayq/error.hpp"
#include "redis/reply.hpp"

namespace delayq::detail {

// A cluster node's answer that a call belongs elsewhere.
struct Redirect {
    enum class Kind {
        kMoved,  // the slot is served by another node now: refresh the map, call there
        kAsk,    // the slot is moving and this key already left: call there once, after ASKING
    };
    Kind kind = Kind::kMoved;
    int slot = 0;
    std::string host;  // empty: the host of the node that answered
    int port = 0;
};

// "MOVED 3999 127.0.0.1:6381" or "ASK 3999 127.0.0.1:6381"; nullopt for any other reply.
std::optional<Redirect> parse_redirect(const Reply& reply);

// A refusal that passes by itself: TRYAGAIN (a multi-key call during a slot move), CLUSTERDOWN
// (the cluster is failing over), LOADING, MASTERDOWN. The call changed nothing and may be sent
// again after a pause.
bool is_transient_refusal(const Reply& reply);

// A call answered with a redirection: thrown where replies become exceptions (script_reply),
// caught where the slot is known (run_routed), which sends the call where it belongs. Should
// one ever reach a caller (too many redirections), it is the ServerError it derives from.
class RedirectedError : public ServerError {
  public:
    RedirectedError(const std::string& what, Redirect redirect)
        : ServerError(what), redirect_(std::move(redirect)) {}
    const Redirect& redirect() const { return redirect_; }

  private:
    Redirect redirect_;
};

// A call refused for now (is_transient_refusal): nothing was written, it may be sent again.
class TransientRefusalError : public ServerError {
  public:
    using ServerError::ServerError;
};

// A write refused by a replica (READONLY): under Sentinel, a master that a failover demoted,
// whose successor the sentinels name (run_routed asks them and sends the call there). Elsewhere
// it is not transient (a URL naming a replica) and run_routed throws it as it is.
class ReadOnlyError : public TransientRefusalError {
  public:
    using TransientRefusalError::TransientRefusalError;
};

bool is_read_only(const Reply& reply);

}  // namespace delayq::detail
