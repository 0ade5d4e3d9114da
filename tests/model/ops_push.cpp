// Push delivery, as a pusher drives it one call at a time: the target, its leases, and the
// settling of each answer by the pusher's own verdict (push/answer.hpp): a 2xx acks, a 408,
// 429 or 5xx retries with the queue's backoff, another 4xx or a 3xx dead-letters, and the
// last answer is recorded.
#include <algorithm>
#include <chrono>

#include "model/driver.hpp"
#include "push/answer.hpp"
#include "push/retry_after.hpp"

namespace delayq::model {
namespace {

// 24 random bytes in base64: a secret validate_push_secret takes.
constexpr const char* kSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

PushTarget random_target(Rng& rng) {
    PushTarget t;
    t.url = rng.chance(0.5) ? "http://127.0.0.1:9/hook" : "https://example.com/in?team=a";
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

// The answers a receiver gives, and their bodies.
int random_status(Rng& rng) {
    const std::vector<int> statuses = {200, 200, 201, 204, 500, 500, 502,
                                       503, 429, 408, 404, 400, 301, 99};
    return rng.pick(statuses);
}

}  // namespace

void Driver::push_set(Target& t) {
    PushTarget target = random_target(rng_);
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
    for (const Delivery& d : actual->fetch.deliveries) t.pushed.push_back(d.lease());
    tally("push.lease -> delivered", actual->fetch.deliveries.size());
    if (actual->limited) tally("push.lease -> limited");
    if (!actual->has_target) tally("push.lease -> no target");
    result(std::to_string(actual->fetch.deliveries.size()) + " leased" +
           (actual->limited ? ", limited" : ""));
}

// One request's answer, settled as the pusher settles it.
void Driver::push_settle(Target& t) {
    std::erase_if(t.pushed, [&](const Lease& l) {
        const auto held = t.model.held_leases();
        return std::find(held.begin(), held.end(), l) == held.end();
    });
    const Lease lease = !t.pushed.empty() && rng_.chance(0.9) ? rng_.pick(t.pushed) : pick_lease(t);
    const int status = random_status(rng_);
    const std::string body = rng_.chance(0.5) ? "" : error_text(rng_);
    const push::PushVerdict verdict = push::judge_answer(status, body);
    note(t, "push answer " + std::to_string(status) + " for " + show(lease.id()) + "#" +
                std::to_string(lease.token()));
    std::string what;
    Expect<LeaseResult> expected;
    std::optional<LeaseResult> actual;
    switch (verdict.action) {
        case push::PushAction::kAck: {
            what = "push ack";
            const auto all = t.model.ack(std::span(&lease, 1));
            if (all) expected = all->front();
            actual = call([&] { return t.leases.ack(lease); });
            break;
        }
        case push::PushAction::kRetry: {
            what = "push nack";
            Nack nack{std::nullopt, verdict.error};
            // Sometimes with a Retry-After in seconds, as the pusher reads it.
            if (rng_.chance(0.3)) {
                const std::string retry_after = std::to_string(rng_.between(0, 90'000));
                nack.delay = push::parse_retry_after(retry_after, std::chrono::system_clock::now());
                what += " (Retry-After)";
                result("Retry-After: " + retry_after);
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
    if (rng_.chance(0.5)) {
        t.model.push_record(status, verdict.error);
        t.push.record(status, verdict.error);
        push_get(t);
    }
}

}  // namespace delayq::model
