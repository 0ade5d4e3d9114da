#pragma once

#include <cstddef>
#include <cstdint>

#include "delayq/options.hpp"
#include "redis/script.hpp"

namespace delayq::detail {

// The dead-letter set's retention bounds, which every script that dead-letters applies.
struct Retention {
    std::size_t dead_max_count = 0;  // 0: unbounded
    Duration dead_max_age{0};        // 0: unbounded

    static Retention of(const QueueOptions& options) {
        return Retention{options.dead_max_count, options.dead_max_age};
    }
    // dead_max_count, then dead_max_age_ms: the two arguments the scripts take.
    void add_to(ScriptArgs& args) const {
        args.add(static_cast<std::int64_t>(dead_max_count));
        args.add(static_cast<std::int64_t>(dead_max_age.count()));
    }
};

}  // namespace delayq::detail
