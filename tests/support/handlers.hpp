#pragma once

#include <chrono>
#include <utility>

#include "delayq/delayq.hpp"
#include "support/recorder.hpp"

namespace delayq::test {

// Acks every delivery: the outcome most consumer tests do not care about.
inline Outcome ack_all(const Delivery&) { return Ack{}; }

// Records each delivery in `seen`, then lets `then` decide its outcome (an ack by default).
// Recording first lets a test wait for a delivery whatever the handler does with it next,
// even when that is to block or to throw.
inline Handler recording(Collector<DeliveryRecord>& seen, Handler then = ack_all) {
    return [&seen, decide = std::move(then)](const Delivery& d) -> Outcome {
        seen.add(record_of(d));
        return decide(d);
    };
}

// Holds each delivery until the test opens `finish`, then acks it: a handler that is still
// running while the test looks at the queue. The 30 s bound only keeps a failed test from hanging.
inline Handler ack_once_open(Latch& finish) {
    return [&finish](const Delivery&) -> Outcome {
        finish.wait(std::chrono::seconds(30));
        return Ack{};
    };
}

}  // namespace delayq::test
