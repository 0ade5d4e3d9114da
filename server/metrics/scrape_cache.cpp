#include "metrics/scrape_cache.hpp"

#include <spdlog/spdlog.h>

#include <exception>

namespace delayq::server {

ScrapeCache::ScrapeCache(Client client, Duration max_age)
    : client_(std::move(client)), max_age_(max_age) {}

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
        for (const auto& name : client_.queues()) {
            scrape->queues.push_back({name, client_.admin(name).stats()});
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
