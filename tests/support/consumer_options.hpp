#pragma once

// ConsumerOptions the consumer tests share.
#include <chrono>

#include "delayq/delayq.hpp"
#include "support/recorder.hpp"

namespace delayq::test {

using namespace std::chrono_literals;

// Fast retries, so tests wait for events rather than for backoff.
inline ConsumerOptions fast_options() {
    ConsumerOptions o;
    o.backoff = Backoff{.initial = 10ms, .max = 10ms, .multiplier = 1.0, .jitter = 0.0};
    return o;
}

// fast_options() without the idle check, the safety net that polls an idle queue: only a
// wake-up signal or the aim at the next due time can make the consumer fetch.
inline ConsumerOptions without_idle_polling() {
    ConsumerOptions o = fast_options();
    o.idle_check = 1h;
    return o;
}

// fast_options() whose dead-letter hook collects every event in `dead`.
inline ConsumerOptions reporting_dead_letters_to(Collector<DeadLetterEvent>& dead) {
    ConsumerOptions o = fast_options();
    o.on_dead_letter = [&dead](const DeadLetterEvent& e) { dead.add(e); };
    return o;
}

}  // namespace delayq::test
