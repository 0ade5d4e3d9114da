#include "metrics/scrape_cache.hpp"

#include <spdlog/spdlog.h>

#include <exception>

namespace delayq::server {

ScrapeCache::ScrapeCache(Client client, Duration max_age, std::size_t max_queues)
    : client_(std::move(client)), max_age_(max_age), max_queues_(max_queues) {}

std::shared_ptr<const Scrape> ScrapeCache::get() {
    std::lock_guard lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    if (last_ && now - last_->read_at < max_age_) return last_;
    last_ = read();
    ++reads_;
    return last_;
}

std::uint64_t ScrapeCache::reads() const {
    std::lock_guard lock(mu_);
    return reads_;
}

std::shared_ptr<const Scrape> ScrapeCache::read() const {
    auto scrape = std::make_shared<Scrape>();
    scrape->read_at = std::chrono::steady_clock::now();
    try {
        const auto start = std::chrono::steady_clock::now();
        client_.ping();
        scrape->redis_roundtrip = std::chrono::steady_clock::now() - start;
        const std::vector<std::string> names = client_.queues();
        scrape->truncated = names.size() > max_queues_;
        for (std::size_t i = 0; i < names.size() && i < max_queues_; ++i) {
            scrape->queues.push_back({names[i], client_.admin(names[i]).stats()});
        }
        scrape->redis_up = true;
    } catch (const std::exception& e) {
        spdlog::warn("metrics: reading the queues' figures failed: {}", e.what());
        scrape->queues.clear();
        scrape->redis_up = false;
        scrape->redis_roundtrip.reset();
    }
    return scrape;
}

}  // namespace delayq::server
