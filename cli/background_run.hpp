#pragma once

#include <functional>
#include <string>
#include <vector>

#include "session.hpp"

namespace delayq::cli {

// A background part of the library or the pushers (a Scheduler, a Pusher), as `schedule run`
// and `push run` drive it.
struct BackgroundPart {
    std::function<void()> start;
    std::function<void()> stop;  // any thread
    std::function<void()> wait;  // until stopped
    // A line on stderr when something happened: once a second while it runs, and at the end.
    std::function<void()> report;
};

// Connects, starts the part and runs it until SIGTERM or Ctrl-C (a second one exits at once),
// saying so on stderr as `command` ("delayq push run"), with `doing` after the start
// ("pushing the due messages of ..."). The part's constructor has checked its options: bad
// ones are exit 2 before anything is contacted. Returns the exit status (0).
int run_until_signal(Session& session, const std::string& command, const std::string& doing,
                     const BackgroundPart& part);

// "queue(s) a b" for the queues named, else `all` ("every queue with schedules").
std::string queues_text(const std::vector<std::string>& queues, const std::string& all);

}  // namespace delayq::cli
