#pragma once

#include <string>
#include <vector>

#include "command_set.hpp"

namespace delayq::cli {

// What `dead requeue` and `dead purge` take: the ids of dead letters, or --all.
struct DeadChangeArgs {
    std::string queue;
    std::vector<std::string> ids;
    bool all = false;
};

enum class DeadChange { kRequeue, kPurge };

// Declares QUEUE, ID... and --all on the command.
void add_dead_change_options(CLI::App& command, DeadChangeArgs& args);

// Requeues or purges; every id is checked before anything is sent. Exit status 1 when some ids
// named are not dead letters.
int change_dead_letters(const DeadChangeArgs& args, const Invocation& invocation,
                        DeadChange change);

}  // namespace delayq::cli
