#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <string_view>

#include "delayq/consumer.hpp"
#include "loop.hpp"
#include "queue_core.hpp"

namespace delayq::detail {

using SteadyClock = std::chrono::steady_clock;

struct ConsumerCounters {
    std::atomic<std::uint64_t> fetched{0};
    std::atomic<std::uint64_t> acked{0};
    std::atomic<std::uint64_t> nacked{0};
    std::atomic<std::uint64_t> dead_lettered{0};
    std::atomic<std::uint64_t> released{0};
    std::atomic<std::uint64_t> leases_lost{0};
    std::atomic<std::uint64_t> redis_errors{0};
};

// What every part of one consumer reads and nothing changes after construction, plus the
// counters (atomics, for stats()).
struct ConsumerContext {
    // Throws InvalidArgument for a missing handler or bad options, before any part is built.
    ConsumerContext(std::shared_ptr<QueueCore> queue_core, Handler h, ConsumerOptions o);

    const std::shared_ptr<QueueCore> core;
    const Handler handler;
    const ConsumerOptions options;
    ConsumerCounters counters;

    void report_redis_error(std::string_view loop, const std::exception& e) {
        report_loop_error(counters.redis_errors, core->name(), loop, e);
    }
};

// Counts dead letters and calls the on_dead_letter hook, which must not break the loop that
// reports them.
void report_dead_letter(ConsumerContext& context, const DeadLetterEvent& event);

}  // namespace delayq::detail
