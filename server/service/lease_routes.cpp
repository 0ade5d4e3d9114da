#include <chrono>
#include <delayq/error.hpp>
#include <delayq/leases.hpp>
#include <memory>
#include <vector>

#include "api/leases_json.hpp"
#include "service/long_poll.hpp"
#include "service/routes.hpp"

namespace delayq::server::service {
namespace {

using nlohmann::json;

constexpr std::string_view kLeases = "/v1/queues/{queue}/leases";
constexpr std::string_view kAck = "/v1/queues/{queue}/ack";
constexpr std::string_view kExtend = "/v1/queues/{queue}/extend";
constexpr std::string_view kRelease = "/v1/queues/{queue}/release";
constexpr std::string_view kNack = "/v1/queues/{queue}/nack";
constexpr std::string_view kReject = "/v1/queues/{queue}/reject";

// A lease request's body may be left out: every field has a default.
json body_or_empty(const http::HttpRequest& r) {
    return r.body.empty() ? json::object() : json_body(r);
}

http::HttpResponse busy() {
    http::HttpResponse r = http::problem_response(
        {429, "rate_limited", "the server has as much work queued as it takes; try again"});
    r.headers.emplace_back("Retry-After", "1");
    return r;
}

// A poll beyond a cap of the long-poll hub: the server is fine, this client holds its share.
http::HttpResponse too_many_polls(const TooManyPolls& e) {
    return http::problem_response({503, "too_many_polls", e.what()});  // with Retry-After: 1
}

http::HttpResponse answer_poll(const PollAnswer& answer) {
    if (answer.error) return http::problem_response(problem_from(answer.error));
    return http::json_response(200, deliveries_text(answer.deliveries));
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
                    Leases leases = ctx->client.leases(request.param("queue"));
                    const FetchResult result = leases.fetch(req.max, req.visibility);
                    return http::json_response(200, deliveries_text(result.deliveries));
                },
                std::move(r));
            return;
        }
        // A client that goes away while its poll waits gives up its place at once (and the
        // leases of a fetch under way for it are released); one gone when its answer comes has
        // its leases released too.
        const std::shared_ptr<http::ClientWatch> client = r.client;
        const LongPollHub::PollId id =
            ctx.long_polls.wait({r.param("queue"), r.principal, req.max, req.visibility,
                                 std::chrono::steady_clock::now() + req.wait,
                                 [shared_reply, client](const PollAnswer& answer) {
                                     if (client && client->gone()) return false;
                                     (*shared_reply)(answer_poll(answer));
                                     return true;
                                 }});
        if (client && id != 0) client->watch([hub = &ctx.long_polls, id] { hub->cancel(id); });
    } catch (const WorkersBusy&) {
        (*shared_reply)(busy());
    } catch (const TooManyPolls& e) {
        (*shared_reply)(too_many_polls(e));
    } catch (...) {
        (*shared_reply)(http::problem_response(problem_from(std::current_exception())));
    }
}

http::HttpResponse ack(RouteContext& ctx, const http::HttpRequest& r) {
    const std::vector<Lease> leases = parse_lease_list(json_body(r));
    const std::vector<LeaseResult> results = ctx.client.leases(r.param("queue")).ack(leases);
    return http::json_response(200, lease_results_text(leases, results));
}

http::HttpResponse extend(RouteContext& ctx, const http::HttpRequest& r) {
    const ExtendRequest req = parse_extend(json_body(r));
    const std::vector<LeaseResult> results =
        ctx.client.leases(r.param("queue")).extend(req.leases, req.visibility);
    return http::json_response(200, lease_results_text(req.leases, results));
}

http::HttpResponse release(RouteContext& ctx, const http::HttpRequest& r) {
    const std::vector<Lease> leases = parse_lease_list(json_body(r));
    const std::vector<LeaseResult> results = ctx.client.leases(r.param("queue")).release(leases);
    return http::json_response(200, lease_results_text(leases, results));
}

http::HttpResponse nack(RouteContext& ctx, const http::HttpRequest& r) {
    const NackRequest req = parse_nack(json_body(r));
    return json_answer(200,
                       outcome_json(ctx.client.leases(r.param("queue")).nack(req.lease, req.nack)));
}

http::HttpResponse reject(RouteContext& ctx, const http::HttpRequest& r) {
    const RejectRequest req = parse_reject(json_body(r));
    return json_answer(
        200, outcome_json(ctx.client.leases(r.param("queue")).reject(req.lease, req.reject)));
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

}  // namespace delayq::server::service
