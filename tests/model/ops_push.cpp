// Push delivery, as a pusher drives it one call at a time: the target, its leases, and each
// request of a leased delivery sent by the pushers' HTTP client to a receiver the test runs,
// which answers as the driver chooses. The answer is settled by the pusher's own verdict
// (push/answer.hpp): a 2xx acks, a 408, 429 or 5xx (or no answer) retries with the queue's
// backoff or the answer's Retry-After, another 4xx or a 3xx dead-letters, and the last answer
// is recorded. The driver's own table of what each answer means is checked against that
// verdict.
#include <algorithm>
#include <chrono>

#include "model/driver.hpp"
#include "push/answer.hpp"
#include "push/request.hpp"
#include "push/retry_after.hpp"
#include "push/signature.hpp"

namespace delayq::model {
namespace {

// 24 random bytes in base64: a secret validate_push_secret takes.
constexpr const char* kSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

PushTarget random_target(Rng& rng, const PushEndpoint& endpoint) {
    PushTarget t;
    // Mostly the test's receiver; now and then an address where connecting is refused.
    const std::vector<std::string> urls = {endpoint.url("/hook"),      endpoint.url("/hook"),
                                           endpoint.url("/in?team=a"), endpoint.url("/in?team=a"),
                                           endpoint.url("/hook"),      PushEndpoint::refused_url()};
    t.url = rng.pick(urls);
    const std::vector<PushMethod> methods = {PushMethod::kPost, PushMethod::kPut,
                                             PushMethod::kPatch};
    t.method = rng.pick(methods);
    if (rng.chance(0.5)) t.content_type = "application/json";
    const std::vector<PushHeader> headers = {{"Authorization", "Bearer x"}, {"X-Team", "a b"}};
    for (const PushHeader& h : headers) {
        if (rng.chance(0.3)) t.headers.push_back(h);
    }
    const std::vector<std::int64_t> timeouts = {1000, 2000, 10000, 30000};
    t.request_timeout = Duration(rng.pick(timeouts));
    t.max_in_flight = rng.chance(0.2) ? 100 : static_cast<std::size_t>(rng.between(1, 6));
    const std::vector<double> rates = {0, 0, 0.5, 1, 2.5, 7};
    t.rate = rng.pick(rates);
    if (rng.chance(0.3)) t.secrets.emplace_back(kSecret);
    return t;
}

std::string describe_target(const PushTarget& t) {
    return t.url + " " + std::string(to_string(t.method)) + " timeout=" + show(t.request_timeout) +
           " in_flight=" + std::to_string(t.max_in_flight) + " rate=" + show(t.rate) +
           " headers=" + std::to_string(t.headers.size()) +
           " secrets=" + std::to_string(t.secrets.size());
}

// The statuses a receiver answers with.
int random_status(Rng& rng) {
    const std::vector<int> statuses = {200, 200, 201, 204, 500, 500, 502, 503,
                                       429, 408, 425, 404, 400, 410, 301, 302};
    return rng.pick(statuses);
}

// What an answer asks of the pusher (docs/push.md, "Answers"), written here apart from
// judge_answer so that each is checked by the other.
push::PushAction meaning_of(int status) {
    if (status >= 200 && status <= 299) return push::PushAction::kAck;
    if (status == 408 || status == 425 || status == 429 || status >= 500) {
        return push::PushAction::kRetry;
    }
    return push::PushAction::kDeadLetter;
}

std::string_view verdict_name(push::PushAction action) {
    switch (action) {
        case push::PushAction::kAck:
            return "ack";
        case push::PushAction::kRetry:
            return "retry";
        case push::PushAction::kDeadLetter:
            return "dead-letter";
    }
    return "?";
}

// The path and query a request for `url` carries.
std::string target_of(std::string_view url) {
    const std::size_t host = url.find("://");
    const std::size_t path = url.find('/', host == std::string_view::npos ? 0 : host + 3);
    return path == std::string_view::npos ? "/" : std::string(url.substr(path));
}

// Deliveries a push.lease handed out, remembered to settle (most of them while still leased).
constexpr std::size_t kPushedKept = 64;

}  // namespace

void Driver::push_set(Target& t) {
    PushTarget target = random_target(rng_, push_endpoint_);
    if (t.model.push() && rng_.chance(0.3)) target = t.model.push()->target;  // the same again
    note(t, "push.set(" + describe_target(target) + ")");
    const PushSetStatus expected = t.model.push_set(target);
    const PushSetStatus actual = t.push.set(target);
    diff_.eq("push.set", static_cast<int>(expected), static_cast<int>(actual));
    tally("push.set -> " + std::to_string(static_cast<int>(actual)));
    push_get(t);
}

void Driver::push_remove(Target& t) {
    note(t, "push.remove()");
    const bool expected = t.model.push_remove();
    diff_.eq("push.remove", expected, t.push.remove());
    tally("push.remove");
}

void Driver::push_get(Target& t) { compare(diff_, "push.get", t.model.push_get(), t.push.get()); }

void Driver::push_lease(Target& t) {
    const std::size_t n = rng_.chance(0.02) ? kMaxBatch + 1 : fetch_count(rng_);
    note(t, "push.lease(" + std::to_string(n) + ")");
    const auto expected = t.model.push_lease(n);
    const auto actual = call([&] { return t.push.lease(n); });
    if (!outcome("push.lease", expected, actual, [&](const auto& e, const auto& a) {
            compare(diff_, "push.lease", e.fetch, a.fetch, t.last_token);
            diff_.eq("push.lease.limited", e.limited, a.limited);
            diff_.eq("push.lease.has_target", e.has_target, a.has_target);
        })) {
        return;
    }
    if (const std::string wrong = t.model.bind_tokens(actual->fetch.deliveries); !wrong.empty()) {
        diff_.add("push.lease: " + wrong);
    }
    for (const Delivery& d : actual->fetch.deliveries) t.pushed.push_back(d);
    if (t.pushed.size() > kPushedKept) {
        t.pushed.erase(t.pushed.begin(), t.pushed.end() - static_cast<std::ptrdiff_t>(kPushedKept));
    }
    tally("push.lease -> delivered", actual->fetch.deliveries.size());
    if (actual->limited) tally("push.lease -> limited");
    // Mostly the answer comes next, as from a quick receiver; else other steps come between.
    if (!actual->fetch.deliveries.empty() && rng_.chance(0.6)) {
        follow_up_ = &Driver::push_settle;
        follow_up_target_ = &t;
    }
    if (!actual->has_target) tally("push.lease -> no target");
    result(std::to_string(actual->fetch.deliveries.size()) + " leased" +
           (actual->limited ? ", limited" : ""));
}

// One request of a pushed delivery, its answer, and the settling of it as the pusher settles.
// Mostly of a delivery still leased; now and then of one whose lease has lapsed since (it is
// lost), as a slow receiver's is.
void Driver::push_settle(Target& t) {
    const std::vector<Lease> held = t.model.held_leases();
    std::vector<Delivery> live;
    std::vector<Delivery> stale;
    for (const Delivery& d : t.pushed) {
        (std::find(held.begin(), held.end(), d.lease()) != held.end() ? live : stale).push_back(d);
    }
    const bool late = !stale.empty() && (live.empty() ? rng_.chance(0.2) : rng_.chance(0.1));
    if (live.empty() && !late) {
        push_lease(t);  // nothing being pushed: as the pusher, lease first
        return;
    }
    const Delivery d = late ? rng_.pick(stale) : rng_.pick(live);
    // The target as the pusher read it when it sent; with none (removed since), a plain one.
    PushTarget target{.url = push_endpoint_.url("/hook")};
    if (t.model.push()) target = t.model.push()->target;
    const bool refused = target.url == PushEndpoint::refused_url();

    test::ReceiverAnswer answer;
    const bool close = rng_.chance(0.05);
    answer.close = close;
    answer.status = random_status(rng_);
    // A 204 has no body (Beast refuses to write one).
    if (answer.status != 204 && rng_.chance(0.5)) answer.body = error_text(rng_);
    std::string retry_after;
    if (meaning_of(answer.status) == push::PushAction::kRetry && rng_.chance(0.3)) {
        retry_after = std::to_string(rng_.between(0, 90'000));
        answer.headers.emplace_back("Retry-After", retry_after);
    }
    const bool answered = !refused && !close;
    const push::PushAction meant = answered ? meaning_of(answer.status) : push::PushAction::kRetry;
    note(t, "push " + show(d.id()) + "#" + std::to_string(d.lease().token()) + " to " + target.url +
                ": " +
                (refused ? "refused"
                 : close ? "closed unanswered"
                         : std::to_string(answer.status) +
                               (retry_after.empty() ? "" : " Retry-After " + retry_after)));

    push::HttpRequest request = push::push_request(target, push::WebhookSigner(target.secrets), d,
                                                   std::chrono::system_clock::now());
    // The pusher's timeout is the pusher tests' to check (PusherTest.*): here a slow machine
    // must not turn a chosen answer into a timeout.
    request.timeout = std::max(request.timeout, std::chrono::milliseconds(30'000));
    const PushExchange x = push_endpoint_.exchange(std::move(request), answer);
    ++counts_.push_requests;
    const push::PushVerdict verdict = x.answer.verdict();
    result(std::string(verdict_name(verdict.action)) +
           (verdict.error.empty() ? "" : " (" + show(verdict.error) + ")"));

    // What crossed the connection, both ways.
    diff_.eq("push request reached the receiver", !refused, x.request.has_value());
    if (x.request) {
        const test::ReceivedRequest& r = *x.request;
        diff_.eq("push request method", std::string(to_string(target.method)), r.method);
        diff_.eq("push request target", target_of(target.url), r.target);
        diff_.eq("push request Delayq-Message-Id", d.id(), r.header("Delayq-Message-Id"));
        diff_.eq("push request Delayq-Attempt", std::to_string(d.attempt()),
                 r.header("Delayq-Attempt"));
        diff_.eq("push request webhook-id", push::webhook_id(t.model.name(), d.id()),
                 r.header("webhook-id"));
        diff_.eq("push request signed", !target.secrets.empty(),
                 !r.header("webhook-signature").empty());
        diff_.eq("push request body", d.payload(), r.body);
    }
    if (answered) {
        diff_.eq("push answer status", answer.status, x.answer.status);
        diff_.eq("push answer error", push::judge_answer(answer.status, answer.body).error,
                 verdict.error);
        diff_.eq("push answer Retry-After", retry_after, x.answer.retry_after.value_or(""));
    } else {
        diff_.eq("push answer: none", true, x.answer.failure.has_value());
    }
    diff_.eq("push verdict", std::string(verdict_name(meant)),
             std::string(verdict_name(verdict.action)));
    if (!diff_.empty()) return;

    std::string what;
    Expect<LeaseResult> expected;
    std::optional<LeaseResult> actual;
    const Lease lease = d.lease();
    switch (verdict.action) {
        case push::PushAction::kAck: {
            what = "push ack";
            const auto all = t.model.ack(std::span(&lease, 1));
            if (all) expected = all->front();
            actual = call([&] { return t.leases.ack(lease); });
            break;
        }
        case push::PushAction::kRetry: {
            what = x.answer.retry_after ? "push nack (Retry-After)" : "push nack";
            Nack nack{std::nullopt, verdict.error};
            if (x.answer.retry_after) {
                nack.delay = push::parse_retry_after(*x.answer.retry_after,
                                                     std::chrono::system_clock::now());
            }
            expected = t.model.nack(lease, nack);
            actual = call([&] { return t.leases.nack(lease, nack); });
            break;
        }
        case push::PushAction::kDeadLetter:
            what = "push reject";
            expected = t.model.reject(lease, Reject{verdict.error});
            actual = call([&] { return t.leases.reject(lease, Reject{verdict.error}); });
            break;
    }
    if (outcome(what, expected, actual,
                [&](const auto& e, const auto& a) { compare(diff_, what, e, a); })) {
        tally(what, {*actual});
    }
    tally(refused ? "push answer: connection refused"
          : close ? "push answer: closed unanswered"
                  : "push answer: " + std::to_string(answer.status));
    if (rng_.chance(0.5)) {
        t.model.push_record(x.answer.status, verdict.error);
        t.push.record(x.answer.status, verdict.error);
        push_get(t);
    }
}

}  // namespace delayq::model
