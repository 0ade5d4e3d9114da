#pragma once

#include <string>

#include "metrics/request_metrics.hpp"
#include "metrics/scrape_cache.hpp"

namespace delayq::server {

// The service's own figures beside the queues'.
struct ServiceFigures {
    std::size_t long_polls_waiting = 0;
    std::uint64_t long_poll_fetches = 0;
};

// The whole text of GET /metrics: build info, Redis reachability and round trip, the service's
// figures, the HTTP request durations and every queue's families.
std::string render_metrics(const Scrape& scrape, const RequestMetrics& requests,
                           const ServiceFigures& service);

}  // namespace delayq::server
