#pragma once

#include <delayq/client.hpp>
#include <functional>
#include <nlohmann/json.hpp>
#include <string_view>

#include "auth/lease_key.hpp"
#include "http/message.hpp"
#include "http/router.hpp"
#include "metrics/request_metrics.hpp"
#include "metrics/scrape_cache.hpp"
#include "service/auth_gate.hpp"
#include "service/history.hpp"
#include "service/history_recorder.hpp"
#include "service/long_poll.hpp"
#include "service/queue_handles.hpp"
#include "service/worker_pool.hpp"

// How route groups (service/*_routes.cpp) register: each route says what access it needs, and
// the guard checks it (401/403) and the body's media type (415) before the handler runs.
namespace delayq::server::service {

// What every route may use; it outlives the router.
struct RouteContext {
    Client client;
    QueueHandles& queues;  // for sends: one handle a queue, shared by every request
    AuthGate& auth;
    WorkerPool& pool;
    LongPollHub& long_polls;
    ScrapeCache& scrapes;
    RequestMetrics& requests;
    History& history;
    HistoryRecorder& history_recorder;
    auth::LeaseKey& lease_key;    // seals the leases handed out, opens those taken back
    bool metrics_public = false;  // GET /metrics without a token
};

// A handler that makes blocking library calls: it runs on the worker pool, never on an I/O
// thread. An exception it throws answers as problem_from() says (InvalidArgument: 400, ...).
using BlockingHandler = std::function<http::HttpResponse(const http::HttpRequest&)>;

// Registers `handler` behind the access check. For Access::queue, the route's pattern must have
// a {queue} parameter. The handler's answer carries the token's entry name to the access log.
void add_route(http::Router& router, RouteContext& context, http::Verb method,
               std::string_view pattern, Access access, http::Handler handler);
// The same for a BlockingHandler: when the pool's queue is full, 429 rate_limited.
void add_blocking_route(http::Router& router, RouteContext& context, http::Verb method,
                        std::string_view pattern, Access access, BlockingHandler handler);

// Runs `work` on the pool and answers with what it returns; 429 when the pool is full.
void run_blocking(RouteContext& context, http::Reply reply, BlockingHandler work,
                  http::HttpRequest request);

// The request's body as JSON; InvalidArgument (a 400) when it is empty or not JSON.
nlohmann::json json_body(const http::HttpRequest& request);
// A 200/201 answer with a JSON body.
http::HttpResponse json_answer(unsigned status, const nlohmann::json& body);

}  // namespace delayq::server::service
