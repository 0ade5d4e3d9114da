#pragma once

#include <functional>
#include <span>
#include <string>

#include "delayq/types.hpp"
#include "redis/script.hpp"
#include "redis/topology.hpp"

namespace delayq::detail {

// The keys of one call share a hash slot (a queue's): where the calls for it go.
struct Route {
    Topology& topology;
    int slot = 0;
};

// Redirections one call follows at most: a slot moves once at a time, so a few are plenty,
// and a loop between confused nodes ends with an error instead of spinning.
inline constexpr int kMaxRedirects = 5;

// run_script for the keys of `route.slot`, wherever the slot is served. It runs on `conn`, a
// connection of the client to any node (that node's engine runs it). Where the cluster answers
// that the slot is elsewhere it goes there: after MOVED (the map updated) on a pooled
// connection of the new primary, after ASK (a slot being moved, this key gone ahead) once on the
// importing node behind ASKING. After TRYAGAIN, CLUSTERDOWN, LOADING or MASTERDOWN, which change
// nothing, it is sent again after a growing pause until `patience` has passed (then the
// refusal is thrown). Under Sentinel, READONLY (a demoted master) is such a refusal, after which
// the sentinels are asked again and the call goes to the master they name; a broken connection
// has them asked again before it is thrown. The holder of a dedicated `conn` learns from
// Topology::serves whether to reconnect; the call itself never depends on it.
//
// `after`, when set, runs on the connection the call ran on, once it succeeded and before that
// connection goes back to its pool: a command that must follow the call on its connection
// (WAIT, for a durable send) reaches the node that ran it, wherever the call was redirected.
// It must not throw.
using AfterCall = std::function<void(Connection&)>;
Reply run_routed(const Route& route, Connection& conn, const ScriptSource& script,
                 std::span<const std::string> keys, const ScriptArgs& args, Duration patience,
                 const AfterCall& after = {});

// One plain command on keys of `route.slot` (a key outside every queue's slot, say), on a pooled
// connection of the slot's primary; after MOVED the slot is assigned where the answer says and
// the command sent there once more. The reply as the server gave it, errors included.
Reply run_routed_command(const Route& route, std::initializer_list<std::string_view> argv);

}  // namespace delayq::detail
