#pragma once

#include "metrics/text_format.hpp"
#include "push/pusher.hpp"

namespace delayq::server {

// The service's pusher: requests by outcome, latency from due time to answer, and requests in
// flight, per queue it follows (bounded by PusherOptions::max_queues).
void render_push_metrics(TextFormat& out, const push::PusherStats& stats);

}  // namespace delayq::server
