#include "redis/routed_call.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <thread>

namespace delayq::detail {
namespace {

using Clock = std::chrono::steady_clock;

// The pauses between sends of a refused call: short at first (a TRYAGAIN passes when the last
// keys of a slot move, usually within milliseconds), then up to a tenth of a second.
Duration pause_after(int refusals) {
    return std::min(Duration(1) * (1 << std::min(refusals, 7)), Duration(100));
}

// ASKING and the call, pipelined on one connection of the importing node: the flag ASKING sets
// holds for the next command only, so the library is checked before, not between.
Reply call_asking(ConnectionPool& target, Connection& conn, const ScriptSource& script,
                  std::span<const std::string> keys, const ScriptArgs& args) {
    target.engine().use_functions(conn);
    conn.append(std::initializer_list<std::string_view>{"ASKING"});
    const ScriptVia via = append_script(target.engine(), conn, script, keys, args);
    const Reply asking = conn.read();
    Reply reply = conn.read();
    if (asking.is_error()) throw ServerError("ASKING was refused: " + asking.str);
    return script_reply(target.engine(), conn, script, keys, args, via, std::move(reply));
}

}  // namespace

Reply run_routed(const Route& route, Connection& conn, const ScriptSource& script,
                 std::span<const std::string> keys, const ScriptArgs& args, Duration patience,
                 const AfterCall& after) {
    const auto deadline = Clock::now() + patience;
    ConnectionPool* pool = &route.topology.pool_of(conn, route.slot);
    Connection* on = &conn;
    std::optional<ConnectionPool::Lease> elsewhere;  // a pooled connection, after a MOVED
    std::optional<Redirect> ask;  // the call goes to this importing node next, once
    // From now on the call runs on a pooled connection of `node`.
    const auto move_to = [&](ConnectionPool& node) {
        pool = &node;
        elsewhere.reset();
        elsewhere.emplace(node.acquire());
        on = &**elsewhere;
    };
    // The topology learnt again (a failover may be done): true when it names another node,
    // where the call goes next.
    const auto follow_topology = [&] {
        route.topology.refresh();
        ConnectionPool& now = route.topology.pool_for(route.slot);
        if (&now == pool) return false;
        move_to(now);
        return true;
    };
    int redirects = 0;
    int refusals = 0;
    for (;;) {
        try {
            if (ask) {
                const std::string host = ask->host.empty() ? pool->endpoint().host : ask->host;
                ConnectionPool& target = route.topology.pool_at(host, ask->port);
                ask.reset();
                auto lease = target.acquire();
                Reply reply = call_asking(target, *lease, script, keys, args);
                if (after) after(*lease);
                return reply;
            }
            Reply reply = run_script(pool->engine(), *on, script, keys, args);
            if (after) after(*on);
            return reply;
        } catch (const RedirectedError& e) {
            if (++redirects > kMaxRedirects) throw;
            const Redirect& r = e.redirect();
            if (r.kind == Redirect::Kind::kAsk) {
                ask = r;
                continue;
            }
            route.topology.moved(r, pool->endpoint());
            move_to(route.topology.pool_for(route.slot));
        } catch (const ReadOnlyError&) {
            // A master a failover demoted (nothing was written): the sentinels name the new one.
            if (!route.topology.sentinel()) throw;
            const auto pause = pause_after(refusals++);
            if (Clock::now() + pause > deadline) throw;
            if (!follow_topology()) std::this_thread::sleep_for(pause);
        } catch (const ConnectionError&) {
            // A dead master: the sentinels may name its successor already, for the next call.
            // This one is not sent again, since it may have run before the connection broke.
            if (route.topology.sentinel()) route.topology.refresh();
            throw;
        } catch (const TransientRefusalError& e) {
            const auto pause = pause_after(refusals++);
            if (Clock::now() + pause > deadline) throw;
            std::this_thread::sleep_for(pause);
            // CLUSTERDOWN may be a failover under way: the new map names the new primary.
            if (std::string_view(e.what()).find("CLUSTERDOWN") != std::string_view::npos) {
                follow_topology();
            }
        }
    }
}

Reply run_routed_command(const Route& route, std::initializer_list<std::string_view> argv) {
    Reply reply;
    for (int tries = 0; tries < 2; ++tries) {
        ConnectionPool& pool = route.topology.pool_for(route.slot);
        reply = pool.acquire()->command(argv);
        const auto redirect = parse_redirect(reply);
        if (!redirect || redirect->kind != Redirect::Kind::kMoved) break;
        route.topology.moved(*redirect, pool.endpoint());
    }
    return reply;
}

}  // namespace delayq::detail
