#pragma once

// Differences between what the model expects and what the library answered, one line each,
// for the report of a failing step.
#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "delayq/delayq.hpp"
#include "model/model.hpp"

namespace delayq::model {

std::string show(const std::string& s);
std::string show(TimePoint t);
std::string show(Duration d);
std::string show(State s);
std::string show(CancelResult r);
std::string show(RescheduleStatus s);
std::string show(LeaseStatus s);
std::string show(DeleteStatus s);
std::string show(bool b);
std::string show(double d);
template <class T>
requires std::is_integral_v<T> std::string show(T n) { return std::to_string(n); }
template <class T>
std::string show(const std::optional<T>& o) {
    return o ? show(*o) : std::string("none");
}

class Diff {
  public:
    // `what` names the value: "get(id-3).attempts".
    template <class T>
    void eq(std::string_view what, const T& expected, const T& actual) {
        if (!(expected == actual)) {
            add(std::string(what) + ": expected " + show(expected) + ", got " + show(actual));
        }
    }
    // The same for a field of `what`: "get(id-3)" and "attempts". Names are built only for a
    // difference: a step compares thousands of fields.
    template <class T>
    void eq(std::string_view what, std::string_view name, const T& expected, const T& actual) {
        if (!(expected == actual)) {
            add(std::string(what) + "." + std::string(name) + ": expected " + show(expected) +
                ", got " + show(actual));
        }
    }
    void add(std::string line) { lines_.push_back(std::move(line)); }
    bool empty() const { return lines_.empty(); }
    const std::vector<std::string>& lines() const { return lines_; }

  private:
    std::vector<std::string> lines_;
};

void compare(Diff& d, std::string_view what, const MessageInfo& expected,
             const MessageInfo& actual);
void compare(Diff& d, std::string_view what, const SendResult& expected, const SendResult& actual);
void compare(Diff& d, std::string_view what, const LeaseResult& expected,
             const LeaseResult& actual);
void compare(Diff& d, std::string_view what, const RescheduleResult& expected,
             const RescheduleResult& actual);
void compare(Diff& d, std::string_view what, const DeleteResult& expected,
             const DeleteResult& actual);
void compare(Diff& d, std::string_view what, const QueueSettings& expected,
             const QueueSettings& actual);
void compare(Diff& d, std::string_view what, const QueueStats& expected, const QueueStats& actual);
// The deliveries (their tokens only for being fresh: above `last_token`, which moves on), the
// dead-letter events, the clock and the next due time.
void compare(Diff& d, std::string_view what, const ExpectedFetch& expected,
             const FetchResult& actual, std::uint64_t& last_token);

template <class T>
void compare_each(Diff& d, std::string_view what, const std::vector<T>& expected,
                  const std::vector<T>& actual) {
    d.eq(std::string(what) + ".size", expected.size(), actual.size());
    for (std::size_t i = 0; i < std::min(expected.size(), actual.size()); ++i) {
        compare(d, std::string(what) + "[" + std::to_string(i) + "]", expected[i], actual[i]);
    }
}

void compare(Diff& d, std::string_view what, const std::optional<PushTargetInfo>& expected,
             const std::optional<PushTargetInfo>& actual);

void compare(Diff& d, std::string_view what, const std::optional<ScheduleInfo>& expected,
             const std::optional<ScheduleInfo>& actual);

// The identity design.md section 6 states, on the queue's own counters: sent = acked +
// cancelled + purged + dead_trimmed + orphans_removed + |pending| + |in flight| + |dead|.
void check_identity(Diff& d, std::string_view what, const QueueStats& actual);

}  // namespace delayq::model
