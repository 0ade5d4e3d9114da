// The comparison of a whole queue with its model after a step.
#include <algorithm>

#include "model/driver.hpp"

namespace delayq::model {
namespace {

// A page limit: mostly one page for everything, sometimes small pages whose cursors chain.
std::size_t page_limit(Rng& rng) {
    return rng.chance(0.9) ? 100 : static_cast<std::size_t>(rng.between(1, 4));
}

// More pages than any queue of this test fills: a listing that does not end is a difference.
constexpr std::size_t kMaxPages = 2000;

}  // namespace

void Driver::check(Target& t, bool thorough) {
    const std::string& name = t.model.name();
    const QueueStats stats = t.admin.stats();
    compare(diff_, name + ".stats", t.model.stats(), stats);
    check_identity(diff_, name + ".stats", stats);
    compare(diff_, name + ".settings", t.model.settings(), t.admin.settings());
    compare(diff_, name + ".push", t.model.push_get(), t.push.get());
    check_schedules(t);
    for (const State s : {State::kScheduled, State::kReady, State::kInFlight, State::kDead}) {
        check_listing(t, s);
    }
    const IdPool pool = ids(t);
    if (thorough) {
        for (const std::string& id : pool.current) check_get(t, id);
        std::vector<std::string> listed;
        for (const auto& target : targets_) {
            if (target->model.listed()) listed.push_back(target->model.name());
        }
        std::sort(listed.begin(), listed.end());
        const std::vector<std::string> actual = client_->queues();
        diff_.eq("client.queues().size", listed.size(), actual.size());
        for (std::size_t i = 0; i < std::min(listed.size(), actual.size()); ++i) {
            diff_.eq("client.queues()[" + std::to_string(i) + "]", listed[i], actual[i]);
        }
    } else {
        for (int i = 0; i < 2 && !pool.current.empty(); ++i) check_get(t, rng_.pick(pool.current));
    }
    if (!pool.history.empty()) check_get(t, rng_.pick(pool.history));
}

void Driver::check_listing(Target& t, State state) {
    const std::string what = t.model.name() + ".list(" + std::string(to_string(state)) + ")";
    std::vector<MessageInfo> all;
    PageRequest page{.limit = page_limit(rng_)};
    for (std::size_t pages = 0;; ++pages) {
        if (pages == kMaxPages) {
            diff_.add(what + ": the listing does not end");
            return;
        }
        MessagePage p = t.admin.list(state, page);
        if (p.messages.size() > page.limit) {
            diff_.add(what + ": a page of " + std::to_string(p.messages.size()) +
                      " over its limit of " + std::to_string(page.limit));
        }
        all.insert(all.end(), p.messages.begin(), p.messages.end());
        if (p.next_cursor.empty()) break;
        page.cursor = p.next_cursor;
    }
    compare_each(diff_, what, t.model.list(state), all);
}

void Driver::check_get(Target& t, const std::string& id) {
    const std::string what = t.model.name() + ".get(" + show(id) + ")";
    const auto expected = t.model.get(id);
    const auto actual = call([&] { return t.admin.get(id); });
    if (expected.has_value() != actual.has_value()) {
        diff_.add(what + (expected ? ": refused: " + refusal_ : ": expected InvalidArgument"));
        return;
    }
    if (!expected) return;
    if (expected->has_value() != actual->has_value()) {
        diff_.add(what + (expected->has_value() ? ": expected the message, got none"
                                                : ": expected none, got a message"));
        return;
    }
    if (*expected) compare(diff_, what, **expected, **actual);
}

}  // namespace delayq::model
