#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace delayq::cli {

// The full path of an executable: `name` itself when it contains a slash, else found on PATH.
std::optional<std::string> find_executable(std::string_view name);

struct CommandResult {
    std::string spawn_error;  // set when the command could not be started
    int exit_code = -1;       // when it exited
    int signal = 0;           // when a signal killed it
    std::string stderr_tail;  // its last lines on stderr

    bool succeeded() const { return spawn_error.empty() && signal == 0 && exit_code == 0; }
    // "command exited with status 3"
    std::string headline() const;
    // The headline and the last stderr lines, for a message's last error.
    std::string describe() const;
};

// Runs a command to its end with `input` on its stdin, stdout shared with ours and stderr
// echoed to ours while its last lines are kept. `extra_env` ("NAME=value") is added to our
// environment. The child gets its own process group, so a Ctrl-C at the terminal (meant to stop
// delayq gracefully) does not kill a command that is half-way through a message.
CommandResult run_command(const std::vector<std::string>& argv, std::string_view input,
                          const std::vector<std::string>& extra_env);

// Runs a program with stdio on /dev/null and waits for it; returns its exit status (-1 when it
// could not be started or was killed). For `redis-server --daemonize yes`, whose first process
// exits once the daemon has forked.
int run_quietly(const std::vector<std::string>& argv);

}  // namespace delayq::cli
