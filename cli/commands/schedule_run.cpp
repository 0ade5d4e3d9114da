// delayq schedule run: a scheduler, sending the occurrences of schedules until a signal.
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <delayq/scheduler.hpp>
#include <memory>

#include "background_run.hpp"
#include "command_set.hpp"
#include "errors.hpp"
#include "session.hpp"

namespace delayq::cli {
namespace {

struct RunArgs {
    std::vector<std::string> queues;
};

// A line on stderr whenever the counts moved since the last one: what was sent, and what was
// not and why; quiet while nothing happens.
class Reporter {
  public:
    explicit Reporter(const Scheduler& scheduler) : scheduler_(scheduler) {}

    void report() {
        const SchedulerStats now = scheduler_.stats();
        if (now.fired != last_.fired || now.missed != last_.missed ||
            now.skipped != last_.skipped || now.queues != last_.queues ||
            now.redis_errors != last_.redis_errors ||
            now.queues_over_limit != last_.queues_over_limit) {
            std::fprintf(stderr,
                         "delayq schedule run: sent %llu, missed %llu, skipped %llu (in all: "
                         "%llu sent); %zu queue(s) followed",
                         static_cast<unsigned long long>(now.fired - last_.fired),
                         static_cast<unsigned long long>(now.missed - last_.missed),
                         static_cast<unsigned long long>(now.skipped - last_.skipped),
                         static_cast<unsigned long long>(now.fired), now.queues);
            if (now.redis_errors != last_.redis_errors) {
                std::fprintf(
                    stderr, "; %llu Redis error(s), retrying",
                    static_cast<unsigned long long>(now.redis_errors - last_.redis_errors));
            }
            if (now.queues_over_limit != last_.queues_over_limit) {
                std::fprintf(stderr, "; %llu queue(s) over the limit not followed",
                             static_cast<unsigned long long>(now.queues_over_limit));
            }
            std::fprintf(stderr, "\n");
        }
        last_ = now;
    }

  private:
    const Scheduler& scheduler_;
    SchedulerStats last_;
};

int run(const RunArgs& a, const Invocation& invocation) {
    Session session(invocation);
    // Checks the queue names (exit 2) and contacts nothing yet.
    Scheduler scheduler(session.client(), SchedulerOptions{.queues = a.queues});
    Reporter reporter(scheduler);
    return run_until_signal(
        session, "delayq schedule run",
        "sending the occurrences of " + queues_text(a.queues, "every queue with schedules"),
        {[&] { scheduler.start(); }, [&] { scheduler.stop(); }, [&] { scheduler.wait(); },
         [&] { reporter.report(); }});
}

}  // namespace

void add_schedule_run(CommandSet& set) {
    auto a = std::make_shared<RunArgs>();
    CLI::App& cmd = set.add(
        {.path = "schedule run",
         .summary = "Run a scheduler: send schedules' occurrences until SIGTERM or Ctrl-C",
         .details =
             R"(Claims the occurrences of the schedules of the queues named, or of every queue
with schedules (found again every few seconds), and sends each as it comes. Any number may run
against one Redis, beside programs' own schedulers: each occurrence is sent once whichever
claims it, so a second one is for availability. Logs on stderr what it sent, missed or skipped,
once a second while anything happens; Redis errors are logged and retried. SIGTERM or Ctrl-C
stops it (exit status 0).

Examples:
  delayq schedule run
  delayq schedule run reports cache)"},
        [a](const Invocation& i) { return run(*a, i); });
    cmd.add_option("QUEUE", a->queues, "Only these queues' schedules (default: every queue's)");
}

}  // namespace delayq::cli
