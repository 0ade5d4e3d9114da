// The consumers' operations on leases.
#include <span>

#include "model/driver.hpp"

namespace delayq::model {
namespace {

std::string describe_lease(const Lease& l) {
    return show(l.id()) + "#" + std::to_string(l.token());
}

std::string describe_lease(const std::vector<Lease>& leases) {
    std::string out = std::to_string(leases.size()) + " leases";
    for (std::size_t i = 0; i < std::min<std::size_t>(leases.size(), 6); ++i) {
        out += (i == 0 ? ": " : ", ") + describe_lease(leases[i]);
    }
    return out;
}

constexpr std::size_t kSeenLeases = 64;

}  // namespace

void Driver::fetch(Target& t) {
    const std::size_t n = fetch_count(rng_);
    const Duration vis = visibility(rng_);
    note(t, "fetch(" + std::to_string(n) + ", " + show(vis) + ")");
    const auto expected = t.model.fetch(n, vis);
    const auto actual = call([&] { return t.leases.fetch(n, vis); });
    if (!outcome("fetch", expected, actual, [&](const auto& e, const auto& a) {
            compare(diff_, "fetch", e, a, t.last_token);
        })) {
        return;
    }
    if (const std::string wrong = t.model.bind_tokens(actual->deliveries); !wrong.empty()) {
        diff_.add("fetch: " + wrong);
    }
    for (const Delivery& d : actual->deliveries) t.seen_leases.push_back(d.lease());
    if (t.seen_leases.size() > kSeenLeases) {
        t.seen_leases.erase(t.seen_leases.begin(),
                            t.seen_leases.end() - static_cast<std::ptrdiff_t>(kSeenLeases));
    }
    tally("fetch -> delivered", actual->deliveries.size());
    for (const DeadLetterEvent& e : actual->dead_lettered) tally("fetch -> dead: " + e.reason);
    result(std::to_string(actual->deliveries.size()) + " delivered, " +
           std::to_string(actual->dead_lettered.size()) + " dead-lettered");
}

void Driver::ack(Target& t) {
    Expect<std::vector<LeaseResult>> expected;
    std::optional<std::vector<LeaseResult>> actual;
    if (rng_.chance(0.5)) {
        const Lease l = pick_lease(t);
        note(t, "ack(" + describe_lease(l) + ")");
        expected = t.model.ack(std::span(&l, 1));
        actual = call([&] { return std::vector<LeaseResult>{t.leases.ack(l)}; });
    } else {
        const std::vector<Lease> ls = pick_leases(t);
        note(t, "ack(" + describe_lease(ls) + ")");
        expected = t.model.ack(ls);
        actual = call([&] { return t.leases.ack(ls); });
    }
    if (outcome("ack", expected, actual,
                [&](const auto& e, const auto& a) { compare_each(diff_, "ack", e, a); })) {
        tally("ack", *actual);
    }
}

void Driver::nack(Target& t) {
    const Lease l = pick_lease(t);
    Nack n{.error = error_text(rng_)};
    if (rng_.chance(0.5)) n.delay = delay(rng_);
    note(t, "nack(" + describe_lease(l) + ", delay=" + (n.delay ? show(*n.delay) : "backoff") +
                ", error=" + show(n.error) + ")");
    const auto expected = t.model.nack(l, n);
    const auto actual = call([&] { return t.leases.nack(l, n); });
    if (outcome("nack", expected, actual,
                [&](const auto& e, const auto& a) { compare(diff_, "nack", e, a); })) {
        tally("nack", {*actual});
        if (actual->status == LeaseStatus::kDeadLettered)
            tally("nack -> dead: " + actual->dead_reason);
    }
}

void Driver::reject(Target& t) {
    const Lease l = pick_lease(t);
    const Reject r{.error = error_text(rng_)};
    note(t, "reject(" + describe_lease(l) + ", error=" + show(r.error) + ")");
    const Expect<LeaseResult> expected = t.model.reject(l, r);
    const auto actual = call([&] { return t.leases.reject(l, r); });
    if (outcome("reject", expected, actual,
                [&](const auto& e, const auto& a) { compare(diff_, "reject", e, a); })) {
        tally("reject", {*actual});
        if (actual->status == LeaseStatus::kDeadLettered)
            tally("reject -> dead: " + actual->dead_reason);
    }
}

void Driver::extend(Target& t) {
    const Duration vis = visibility(rng_);
    Expect<std::vector<LeaseResult>> expected;
    std::optional<std::vector<LeaseResult>> actual;
    if (rng_.chance(0.5)) {
        const Lease l = pick_lease(t);
        note(t, "extend(" + describe_lease(l) + ", " + show(vis) + ")");
        expected = t.model.extend(std::span(&l, 1), vis);
        actual = call([&] { return std::vector<LeaseResult>{t.leases.extend(l, vis)}; });
    } else {
        const std::vector<Lease> ls = pick_leases(t);
        note(t, "extend(" + describe_lease(ls) + ", " + show(vis) + ")");
        expected = t.model.extend(ls, vis);
        actual = call([&] { return t.leases.extend(ls, vis); });
    }
    if (outcome("extend", expected, actual,
                [&](const auto& e, const auto& a) { compare_each(diff_, "extend", e, a); })) {
        tally("extend", *actual);
    }
}

void Driver::release(Target& t) {
    Expect<std::vector<LeaseResult>> expected;
    std::optional<std::vector<LeaseResult>> actual;
    if (rng_.chance(0.5)) {
        const Lease l = pick_lease(t);
        note(t, "release(" + describe_lease(l) + ")");
        expected = t.model.release(std::span(&l, 1));
        actual = call([&] { return std::vector<LeaseResult>{t.leases.release(l)}; });
    } else {
        const std::vector<Lease> ls = pick_leases(t);
        note(t, "release(" + describe_lease(ls) + ")");
        expected = t.model.release(ls);
        actual = call([&] { return t.leases.release(ls); });
    }
    if (outcome("release", expected, actual,
                [&](const auto& e, const auto& a) { compare_each(diff_, "release", e, a); })) {
        tally("release", *actual);
    }
}

// A lease as text and back: what a process that hands leases to others relies on.
void Driver::lease_text(Target& t) {
    std::string text;
    if (rng_.chance(0.7)) {
        text = pick_lease(t).to_string();
    } else {
        static const std::vector<std::string> texts = {"",
                                                       "short",
                                                       "00000000000000",
                                                       "00000000000000id",
                                                       "0000000000000Gid",
                                                       "0000000000000aid{x}",
                                                       "0000000000000a\tid",
                                                       "0000000000000a id"};
        text = rng_.pick(texts);
    }
    note(t, "Lease::parse(" + show(text) + ")");
    const std::optional<Lease> expected = parse_lease_text(text);
    const std::optional<Lease> actual = Lease::parse(text);
    if (expected.has_value() != actual.has_value()) {
        diff_.add("Lease::parse(" + show(text) + "): expected " +
                  (expected ? "a lease" : std::string("none")) + ", got " +
                  (actual ? "a lease" : std::string("none")));
    } else if (expected) {
        diff_.eq("Lease::parse.id", expected->id(), actual->id());
        diff_.eq("Lease::parse.token", expected->token(), actual->token());
        diff_.eq("Lease::parse.to_string", text, actual->to_string());
    }
}

}  // namespace delayq::model
