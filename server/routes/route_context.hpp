#pragma once

#include <cstddef>
#include <delayq/client.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string_view>

#include "api/admin_json.hpp"
#include "auth/lease_key.hpp"
#include "http/message.hpp"
#include "http/router.hpp"
#include "metrics/exposition.hpp"
#include "metrics/request_metrics.hpp"
#include "metrics/scrape_cache.hpp"
#include "routes/auth_gate.hpp"
#include "runtime/history_recorder.hpp"
#include "runtime/long_poll.hpp"
#include "runtime/overview_cache.hpp"
#include "runtime/queue_handles.hpp"
#include "runtime/worker_pool.hpp"

// How route groups (service/*_routes.cpp) register: each route says what access it needs, and
// the guard checks it (401/403) and the body's media type (415) before the handler runs.
namespace delayq::server::routes {

// How long a route's body may be (BodyLimits: how many bytes each is). A longer one is 413 before
// it is read.
enum class Body {
    kSmall,      // a few fields: leases, nack, reject, reschedule, a queue's settings
    kLeaseList,  // up to kMaxBatch leases: ack, extend, release
    kMessage,    // one message: its payload, escaped or in base64, and its options
    kBatch,      // up to kMaxBatch messages
};

struct BodyLimits {
    std::size_t small = std::size_t{64} * 1024;
    // kMaxBatch leases of a kMaxNameBytes id each, escaped and sealed, with room.
    std::size_t lease_list = std::size_t{1024} * 1024;
    std::size_t message = 0;
    std::size_t batch = 0;

    std::size_t bytes(Body body) const;
};

// What every route may use; it outlives the router.
struct RouteContext {
    Client client;
    runtime::QueueHandles& queues;  // for sends: one handle a queue, shared by every request
    AuthGate& auth;
    runtime::WorkerPool& pool;
    runtime::LongPollHub& long_polls;
    ScrapeCache& scrapes;
    runtime::OverviewCache& overview;  // GET /v1/overview's: read at most once a second
    RequestMetrics& requests;
    runtime::HistoryRecorder& history_recorder;
    auth::LeaseKey& lease_key;    // seals the leases handed out, opens those taken back
    bool metrics_public = false;  // GET /metrics without a token
    BodyLimits bodies{};
    // The longest payload a send takes, which the payload of a schedule's spec is held to.
    std::size_t max_payload = 0;
    // The service's own figures for /metrics, from parts made after the routes (the server).
    std::function<ServiceFigures()> figures;
};

// A handler that makes blocking library calls: it runs on the worker pool, never on an I/O
// thread. An exception it throws answers as problem_from() says (InvalidArgument: 400, ...).
using BlockingHandler = std::function<http::HttpResponse(const http::HttpRequest&)>;

// Registers `handler` behind the checks of the request's head: the access (401, 403) and the
// media type (415). For Access::queue, the route's pattern must have a {queue} parameter. The
// handler's answer carries the token's entry name to the access log.
void add_route(http::Router& router, RouteContext& context, http::Verb method,
               std::string_view pattern, Access access, http::Handler handler,
               Body body = Body::kSmall);
// The same for a BlockingHandler: when the pool's queue is full, 429 rate_limited.
void add_blocking_route(http::Router& router, RouteContext& context, http::Verb method,
                        std::string_view pattern, Access access, BlockingHandler handler,
                        Body body = Body::kSmall);

// Runs `task` on the worker pool, in the share of the caller's token (`principal`); when that
// share or the pool is full, answers 429 rate_limited through `reply` instead. `task` answers,
// and must not throw.
void post_work(RouteContext& context, const std::string& principal, const http::Reply& reply,
               std::function<void()> task);
// Runs `work` on the pool and answers with what it returns; 429 as post_work says.
void run_blocking(RouteContext& context, http::Reply reply, BlockingHandler work,
                  http::HttpRequest request);

// Every query parameter, decoded, so that an unknown one is refused rather than ignored;
// InvalidArgument (a 400) for a bad percent-encoding.
QueryParams query_params(const http::HttpRequest& request);
// The request's body as JSON, within bounds (api/json_parse.hpp); InvalidArgument (a 400) when
// it is empty, not JSON, or past them.
nlohmann::json json_body(const http::HttpRequest& request);
// A 200/201 answer with a JSON body.
http::HttpResponse json_answer(unsigned status, const nlohmann::json& body);

}  // namespace delayq::server::routes
