// delayq local stop: stop the managed redis-server.
#include <cstdio>

#include "command_set.hpp"
#include "errors.hpp"
#include "local_redis.hpp"

namespace delayq::cli {

void add_local_stop(CommandSet& set) {
    set.add({.path = "local stop",
             .summary = "Stop it gracefully (its data stays; the next command starts it again)",
             .details = "Examples:\n  delayq local stop"},
            [](const Invocation&) {
                const LocalRedis local(LocalRedis::default_dir());
                const pid_t pid = local.stop();
                if (pid < 0) {
                    std::printf("not running\n");
                } else {
                    std::printf("stopped (pid %d)\n", static_cast<int>(pid));
                }
                return kExitOk;
            });
}

}  // namespace delayq::cli
