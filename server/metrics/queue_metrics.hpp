#pragma once

#include <delayq/types.hpp>
#include <span>
#include <string>

namespace delayq::server {

class TextFormat;

// One queue's figures at a scrape.
struct QueueSample {
    std::string queue;
    QueueStats stats;
};

// The per-queue families of /metrics (docs/http.md, Metrics): messages by state, the age of the
// oldest ready message, the lifetime totals as counters and the delivery lateness histogram
// kept in Redis, each family with every queue's samples.
void render_queue_metrics(TextFormat& out, std::span<const QueueSample> queues);

}  // namespace delayq::server
