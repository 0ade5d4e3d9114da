#include "runtime/overview_cache.hpp"

#include <spdlog/spdlog.h>

#include <delayq/limits.hpp>
#include <exception>

namespace delayq::server::runtime {

OverviewCache::OverviewCache(Client client, HistoryRecorder& recorder, Duration max_age,
                             std::size_t max_queues)
    : client_(std::move(client)), recorder_(recorder), scrapes_(client_, max_age, max_queues) {}

std::shared_ptr<const Overview> OverviewCache::get() {
    std::lock_guard lock(mu_);
    std::shared_ptr<const Scrape> scrape = scrapes_.get();
    if (scrape != scrape_) {
        overview_ = build(*scrape);
        scrape_ = std::move(scrape);
    }
    return overview_;
}

std::shared_ptr<const Overview> OverviewCache::build(const Scrape& scrape) {
    auto overview = std::make_shared<Overview>();
    overview->truncated = scrape.truncated;
    overview->redis_up = scrape.redis_up;
    if (!scrape.redis_up) return overview;  // the hour starts are kept for when it is back
    std::map<std::string, HourStart> kept;
    for (const QueueSample& sample : scrape.queues) {
        HourStart& start = kept[sample.queue];
        if (const auto it = hour_starts_.find(sample.queue); it != hour_starts_.end()) {
            start = std::move(it->second);
        }
        const bool recording = recorder_.watch(sample.queue, sample.stats);
        refresh_hour_start(sample, start);
        overview->queues.push_back({sample.queue, sample.stats, start.point, recording});
    }
    hour_starts_ = std::move(kept);
    return overview;
}

void OverviewCache::refresh_hour_start(const QueueSample& sample, HourStart& start) {
    const auto now = std::chrono::steady_clock::now();
    // An empty history too: a queue this server records has its first point already (watch
    // wrote it), and one beyond the cap waits a period like the others.
    if (start.read_at != std::chrono::steady_clock::time_point{} &&
        now - start.read_at < kHistoryPeriod) {
        return;
    }
    try {
        std::vector<QueueStats> oldest =
            client_.admin(sample.queue).history(sample.stats.now - kHistoryKeep, 1);
        start.point = oldest.empty() ? std::nullopt : std::optional(std::move(oldest.front()));
        start.read_at = now;
    } catch (const std::exception& e) {
        spdlog::warn("overview: reading the history of {} failed: {}", sample.queue, e.what());
    }
}

}  // namespace delayq::server::runtime
