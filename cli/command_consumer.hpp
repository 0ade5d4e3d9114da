#pragma once

#include <chrono>
#include <cstddef>
#include <delayq/leases.hpp>
#include <optional>
#include <string>
#include <vector>

namespace delayq::cli {

struct CommandConsumerOptions {
    std::vector<std::string> command;  // CMD ARGS...: found on PATH (checked by the caller)
    std::size_t concurrency = 1;
    std::optional<std::size_t> max;                    // run it for this many messages, then end
    std::optional<std::chrono::milliseconds> timeout;  // end after this long without messages
    std::optional<Duration> visibility;
};

// `consume QUEUE -- CMD ARGS...`: a Consumer runs the command once per message, with the
// payload on its stdin and DELAYQ_QUEUE, DELAYQ_ID, DELAYQ_ATTEMPT and DELAYQ_DUE_MS in its
// environment; exit status 0 acks, anything else nacks with its last stderr lines as the error.
// Until --max, the timeout, or SIGINT/SIGTERM (running commands finish and are acked). Returns
// the exit status of `consume`.
int run_command_consumer(Leases leases, const CommandConsumerOptions& options);

}  // namespace delayq::cli
