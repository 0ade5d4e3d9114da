// delayq queue set: change a queue's settings.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <delayq/limits.hpp>
#include <delayq/time.hpp>
#include <memory>

#include "command_set.hpp"
#include "errors.hpp"
#include "session.hpp"
#include "settings_text.hpp"
#include "time_text.hpp"

namespace delayq::cli {
namespace {

struct SetArgs {
    std::string queue;
    std::optional<int> max_attempts;
    std::optional<std::string> backoff_initial;
    std::optional<std::string> backoff_max;
    std::optional<double> backoff_multiplier;
    std::optional<double> backoff_jitter;
    std::optional<std::size_t> dead_max_count;
    std::optional<std::string> dead_max_age;
};

std::optional<Duration> optional_duration(const std::optional<std::string>& text) {
    if (!text) return std::nullopt;
    return duration_arg(*text);
}

int set_settings(const SetArgs& a, const Invocation& invocation) {
    // Every value is read before anything is sent: bad text writes nothing.
    const auto initial = optional_duration(a.backoff_initial);
    const auto max = optional_duration(a.backoff_max);
    const bool backoff = initial || max || a.backoff_multiplier || a.backoff_jitter;
    SettingsUpdate update{.max_attempts = a.max_attempts,
                          .dead_max_count = a.dead_max_count,
                          .dead_max_age = optional_duration(a.dead_max_age)};
    if (!backoff && !update.max_attempts && !update.dead_max_count && !update.dead_max_age) {
        throw UsageError("nothing to set: give at least one setting (see --help)");
    }
    Session session(invocation);
    QueueAdmin admin = session.admin(a.queue);
    session.connect();
    if (backoff) {
        // The backoff is one setting in the library: the parts not given keep their values as
        // read here. Two operators changing different parts at the same moment may lose one.
        Backoff b = admin.settings().backoff;
        if (initial) b.initial = *initial;
        if (max) b.max = *max;
        if (a.backoff_multiplier) b.multiplier = *a.backoff_multiplier;
        if (a.backoff_jitter) b.jitter = *a.backoff_jitter;
        update.backoff = b;
    }
    const QueueSettings after = admin.update_settings(update);  // InvalidArgument: exit 2
    std::printf("%s\n%s", a.queue.c_str(), settings_text(after).c_str());
    return kExitOk;
}

}  // namespace

void add_queue_set(CommandSet& set) {
    auto a = std::make_shared<SetArgs>();
    CLI::App& cmd = set.add(
        {.path = "queue set",
         .summary = "Change a queue's settings; what is not given stays as it is",
         .details =
             R"(Prints the settings after the change. A bad value changes nothing (exit status 2).
A message sent with its own --max-attempts, and a consumer with its own backoff, keep theirs.
Durations: 250ms, 30s, 1h30m, 7d (see delayq send --help).

Examples:
  delayq queue set orders --max-attempts 10
  delayq queue set orders --backoff-initial 5s --backoff-max 10m --backoff-jitter 0.1
  delayq queue set orders --dead-max-count 0 --dead-max-age 7d)"},
        [a](const Invocation& i) { return set_settings(*a, i); });
    cmd.add_option("QUEUE", a->queue, "Queue name")->required();
    const auto by_default = [](const std::string& value) { return " (default " + value + ")"; };
    cmd.add_option("--max-attempts", a->max_attempts,
                   "Deliveries before a message is dead-lettered" +
                       by_default(std::to_string(kDefaultMaxAttempts)))
        ->type_name("N")
        ->check(CLI::Range(1, kMaxAttempts));
    cmd.add_option(
           "--backoff-initial", a->backoff_initial,
           "Delay before the first retry" + by_default(format_duration(kDefaultBackoffInitial)))
        ->type_name("DUR");
    cmd.add_option(
           "--backoff-max", a->backoff_max,
           "Longest delay between retries" + by_default(format_duration(kDefaultBackoffMax)))
        ->type_name("DUR");
    cmd.add_option("--backoff-multiplier", a->backoff_multiplier,
                   "Each retry waits this many times the one before" +
                       by_default(number_text(kDefaultBackoffMultiplier)))
        ->type_name("X")
        ->check(CLI::Range(1.0, kMaxBackoffMultiplier));
    cmd.add_option("--backoff-jitter", a->backoff_jitter,
                   "Delays spread by up to this fraction either way, 0 to 1" +
                       by_default(number_text(kDefaultBackoffJitter)))
        ->type_name("X")
        ->check(CLI::Range(0.0, 1.0));
    cmd.add_option("--dead-max-count", a->dead_max_count,
                   "Dead letters kept at most, oldest dropped first; 0: no bound" +
                       by_default(std::to_string(kDefaultDeadMaxCount)))
        ->type_name("N")
        ->check(CLI::Range(std::size_t{0}, kMaxDeadCount));
    cmd.add_option("--dead-max-age", a->dead_max_age,
                   "Dead letters dropped after this long; 0: no bound" +
                       by_default(format_duration(kDefaultDeadMaxAge)))
        ->type_name("DUR");
}

}  // namespace delayq::cli
