#include "fault/limits/catalogue_support.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <thread>

namespace delayq::test::catalogue {

std::string all_bytes() {
    std::string bytes;
    for (int round = 0; round < 2; ++round) {
        for (int b = 0; b < 256; ++b) bytes.push_back(static_cast<char>(b));
        bytes.append(3, '\0');
    }
    return bytes;
}

Delivery lease(Queue& q, Duration visibility) {
    const auto end = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < end) {
        FetchResult r = q.fetch(1, visibility);
        if (!r.deliveries.empty()) return r.deliveries.front();
        std::this_thread::sleep_for(5ms);
    }
    throw std::runtime_error("nothing to lease in queue " + q.name());
}

void round_trip(Queue& q, const std::string& payload, const SendOptions& options) {
    const SendResult sent = q.send(payload, options);
    EXPECT_FALSE(sent.duplicate);
    if (!options.id.empty()) {
        EXPECT_EQ(sent.id, options.id);
    }
    const auto info = q.get(sent.id);
    ASSERT_TRUE(info.has_value());
    EXPECT_EQ(info->payload, payload);
    const Delivery d = lease(q);
    EXPECT_EQ(d.id(), sent.id);
    EXPECT_EQ(d.payload(), payload);
    EXPECT_EQ(q.ack(d), AckResult::kAcked);
    EXPECT_FALSE(q.get(sent.id).has_value());
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

CliCheck stored_payload(std::string payload) {
    return [payload](CatalogueEnv& e, const CliResult& r) {
        const auto info = e.q.get(first_line(r.out));
        ASSERT_TRUE(info.has_value()) << r.out;
        EXPECT_EQ(info->payload, payload);
    };
}

CliCheck stored_due(std::int64_t due_ms) {
    return [due_ms](CatalogueEnv& e, const CliResult& r) {
        const auto info = e.q.get(first_line(r.out));
        ASSERT_TRUE(info.has_value()) << r.out;
        EXPECT_EQ(ms_of(info->due), due_ms);
    };
}

void send_scheduled(CatalogueEnv& e) { e.id = e.q.send("r", {.delay = 1h, .id = "r"}).id; }
void send_and_lease(CatalogueEnv& e) {
    e.id = e.q.send("n").id;
    e.delivery = lease(e.q);
}
void send_ready(CatalogueEnv& e) { e.id = e.q.send("v").id; }

}  // namespace delayq::test::catalogue
