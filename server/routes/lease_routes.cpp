#include <chrono>
#include <delayq/error.hpp>
#include <delayq/leases.hpp>
#include <memory>
#include <vector>

#include "api/leases_json.hpp"
#include "auth/lease_key.hpp"
#include "json/fields.hpp"
#include "routes/routes.hpp"
#include "runtime/long_poll.hpp"

namespace delayq::server::routes {
namespace {

using json::Json;

constexpr std::string_view kLeases = "/v1/queues/{queue}/leases";
constexpr std::string_view kAck = "/v1/queues/{queue}/ack";
constexpr std::string_view kExtend = "/v1/queues/{queue}/extend";
constexpr std::string_view kRelease = "/v1/queues/{queue}/release";
constexpr std::string_view kNack = "/v1/queues/{queue}/nack";
constexpr std::string_view kReject = "/v1/queues/{queue}/reject";

// A lease request's body may be left out: every field has a default.
Json body_or_empty(const http::HttpRequest& r) {
    return r.body.empty() ? Json::object() : json_body(r);
}

http::HttpResponse busy() { return http::problem_response(rate_limited()); }

// A poll beyond a cap of the long-poll hub: the server is fine, this client holds its share.
http::HttpResponse too_many_polls(const runtime::TooManyPolls& e) {
    return http::problem_response({503, "too_many_polls", e.what()});  // with Retry-After: 1
}

// The key is read from Redis on first use (LeaseKey), so it is asked for only with deliveries
// in hand, which a fetch on a worker brought: never on an I/O thread.
http::HttpResponse answer_poll(auth::LeaseKey& key, const runtime::PollAnswer& answer) {
    if (answer.error) return http::problem_response(problem_from(answer.error));
    if (answer.deliveries.empty()) return http::json_response(200, R"({"deliveries":[]})");
    try {
        return http::json_response(200, deliveries_text(answer.deliveries, key.seal()));
    } catch (...) {
        return http::problem_response(problem_from(std::current_exception()));
    }
}

LeaseOpener opener(RouteContext& ctx, const http::HttpRequest& r) {
    return {[key = &ctx.lease_key]() -> const auth::LeaseSeal& { return key->seal(); },
            r.param("queue")};
}

// Runs `op` on the leases whose seal holds; the others are lost without reaching Redis, as if
// they had ended (a client learns nothing it did not know: that it made the MAC up).
template <class Op>
std::vector<LeaseResult> on_authentic(const std::vector<LeaseArg>& args, Op op) {
    std::vector<Lease> authentic;
    authentic.reserve(args.size());
    for (const LeaseArg& a : args) {
        if (a.lease) authentic.push_back(*a.lease);
    }
    if (authentic.size() == args.size()) return op(authentic);
    std::vector<LeaseResult> out(args.size());  // kLost
    if (authentic.empty()) return out;
    const std::vector<LeaseResult> results = op(authentic);
    std::size_t next = 0;
    for (std::size_t i = 0; i < args.size() && next < results.size(); ++i) {
        if (args[i].lease) out[i] = results[next++];
    }
    return out;
}

// With `wait` 0, one fetch on the pool; else the queue's long-poll hub answers, and no worker
// is held while the poll waits.
void lease(RouteContext& ctx, http::HttpRequest r, http::Reply reply) {
    auto shared_reply = std::make_shared<http::Reply>(std::move(reply));
    try {
        const LeaseRequest req = parse_lease_request(body_or_empty(r));
        if (req.wait.count() == 0) {
            run_blocking(
                ctx, [shared_reply](http::HttpResponse out) { (*shared_reply)(std::move(out)); },
                [ctx = &ctx, req](const http::HttpRequest& request) {
                    const auth::LeaseSeal& seal = ctx->lease_key.seal();
                    Leases leases = ctx->client.leases(request.param("queue"));
                    const FetchResult result = leases.fetch(req.max, req.visibility);
                    return http::json_response(200, deliveries_text(result.deliveries, seal));
                },
                std::move(r));
            return;
        }
        // A client that goes away while its poll waits gives up its place at once (and the
        // leases of a fetch under way for it are released); one gone when its answer comes has
        // its leases released too.
        const std::shared_ptr<http::ClientWatch> client = r.client;
        const auto parked = std::chrono::steady_clock::now();
        const runtime::LongPollHub::PollId id = ctx.long_polls.wait(
            {r.param("queue"), r.principal, req.max, req.visibility, parked + req.wait,
             [shared_reply, client, key = &ctx.lease_key,
              parked](const runtime::PollAnswer& answer) {
                 if (client && client->gone()) return false;
                 http::HttpResponse out = answer_poll(*key, answer);
                 out.waited = std::chrono::steady_clock::now() - parked;
                 (*shared_reply)(std::move(out));
                 return true;
             }});
        if (client && id != 0) client->watch([hub = &ctx.long_polls, id] { hub->cancel(id); });
    } catch (const runtime::WorkersBusy&) {
        (*shared_reply)(busy());
    } catch (const runtime::TooManyPolls& e) {
        (*shared_reply)(too_many_polls(e));
    } catch (...) {
        (*shared_reply)(http::problem_response(problem_from(std::current_exception())));
    }
}

http::HttpResponse ack(RouteContext& ctx, const http::HttpRequest& r) {
    const std::vector<LeaseArg> leases = parse_lease_list(json_body(r), opener(ctx, r));
    const std::vector<LeaseResult> results = on_authentic(
        leases,
        [&](const std::vector<Lease>& ls) { return ctx.client.leases(r.param("queue")).ack(ls); });
    return http::json_response(200, lease_results_text(leases, results));
}

http::HttpResponse extend(RouteContext& ctx, const http::HttpRequest& r) {
    const ExtendRequest req = parse_extend(json_body(r), opener(ctx, r));
    const std::vector<LeaseResult> results =
        on_authentic(req.leases, [&](const std::vector<Lease>& ls) {
            return ctx.client.leases(r.param("queue")).extend(ls, req.visibility);
        });
    return http::json_response(200, lease_results_text(req.leases, results));
}

http::HttpResponse release(RouteContext& ctx, const http::HttpRequest& r) {
    const std::vector<LeaseArg> leases = parse_lease_list(json_body(r), opener(ctx, r));
    const std::vector<LeaseResult> results =
        on_authentic(leases, [&](const std::vector<Lease>& ls) {
            return ctx.client.leases(r.param("queue")).release(ls);
        });
    return http::json_response(200, lease_results_text(leases, results));
}

http::HttpResponse nack(RouteContext& ctx, const http::HttpRequest& r) {
    const NackRequest req = parse_nack(json_body(r), opener(ctx, r));
    const LeaseResult result =
        req.lease.lease ? ctx.client.leases(r.param("queue")).nack(*req.lease.lease, req.nack)
                        : LeaseResult{};
    return json_answer(200, outcome_json(result));
}

http::HttpResponse reject(RouteContext& ctx, const http::HttpRequest& r) {
    const RejectRequest req = parse_reject(json_body(r), opener(ctx, r));
    const LeaseResult result =
        req.lease.lease ? ctx.client.leases(r.param("queue")).reject(*req.lease.lease, req.reject)
                        : LeaseResult{};
    return json_answer(200, outcome_json(result));
}

}  // namespace

void add_lease_routes(http::Router& router, RouteContext& context) {
    const auto bind =
        [ctx = &context](http::HttpResponse (*fn)(RouteContext&, const http::HttpRequest&)) {
            return [ctx, fn](const http::HttpRequest& r) { return fn(*ctx, r); };
        };
    const Access consume = Access::queue(Scope::kConsume);
    add_route(router, context, http::Verb::post, kLeases, consume,
              [ctx = &context](http::HttpRequest r, http::Reply reply) {
                  lease(*ctx, std::move(r), std::move(reply));
              });
    add_blocking_route(router, context, http::Verb::post, kAck, consume, bind(ack),
                       Body::kLeaseList);
    add_blocking_route(router, context, http::Verb::post, kExtend, consume, bind(extend),
                       Body::kLeaseList);
    add_blocking_route(router, context, http::Verb::post, kRelease, consume, bind(release),
                       Body::kLeaseList);
    add_blocking_route(router, context, http::Verb::post, kNack, consume, bind(nack));
    add_blocking_route(router, context, http::Verb::post, kReject, consume, bind(reject));
}

}  // namespace delayq::server::routes
