#pragma once

#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace delayq::cli {

// A leaf command and what runs when it is the one given; run returns the exit status.
struct Command {
    CLI::App* app = nullptr;
    std::function<int()> run;
};
using Commands = std::vector<Command>;

// `consume QUEUE -- CMD ARGS...`: main() splits off what follows `--` before parsing, so that
// the command's own options are not taken for delayq's.
struct TrailingCommand {
    bool given = false;  // `--` was there
    std::vector<std::string> argv;
};

void add_send(CLI::App& app, Commands& out);
void add_consume(CLI::App& app, Commands& out, const TrailingCommand& trailing);
void add_cancel(CLI::App& app, Commands& out);
void add_reschedule(CLI::App& app, Commands& out);
void add_stats(CLI::App& app, Commands& out);
void add_queues(CLI::App& app, Commands& out);
void add_peek(CLI::App& app, Commands& out);
void add_dead(CLI::App& app, Commands& out);
void add_local(CLI::App& app, Commands& out);
void add_demo(CLI::App& app, Commands& out);
void add_version(CLI::App& app, Commands& out);

}  // namespace delayq::cli
