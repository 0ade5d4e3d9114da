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

Delivery lease(Leases& leases, Duration visibility) {
    const auto end = std::chrono::steady_clock::now() + 20s;
    while (std::chrono::steady_clock::now() < end) {
        FetchResult r = leases.fetch(1, visibility);
        if (!r.deliveries.empty()) return r.deliveries.front();
        std::this_thread::sleep_for(5ms);
    }
    throw std::runtime_error("nothing to lease in queue " + leases.name());
}

void round_trip(const Client& client, Queue& q, const std::string& payload,
                const SendOptions& options) {
    QueueAdmin admin = client.admin(q.name());
    Leases leases = client.leases(q.name());
    const SendResult sent = q.send(payload, options);
    if (options.id) {
        EXPECT_EQ(sent.id, *options.id);
    }
    const auto info = admin.get(sent.id);
    ASSERT_TRUE(info.has_value());
    EXPECT_EQ(info->payload, payload);
    const Delivery d = lease(leases);
    EXPECT_EQ(d.id(), sent.id);
    EXPECT_EQ(d.payload(), payload);
    EXPECT_EQ(leases.ack(d.lease()).status, LeaseStatus::kAcked);
    EXPECT_FALSE(admin.get(sent.id).has_value());
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

CliCheck stored_payload(std::string payload) {
    return [payload](CatalogueEnv& e, const CliResult& r) {
        const auto info = e.admin.get(first_line(r.out));
        ASSERT_TRUE(info.has_value()) << r.out;
        EXPECT_EQ(info->payload, payload);
    };
}

CliCheck stored_due(std::int64_t due_ms) {
    return [due_ms](CatalogueEnv& e, const CliResult& r) {
        const auto info = e.admin.get(first_line(r.out));
        ASSERT_TRUE(info.has_value()) << r.out;
        EXPECT_EQ(ms_of(info->due), due_ms);
    };
}

void send_scheduled(CatalogueEnv& e) { e.id = e.q.send("r", {.delay = 1h, .id = "r"}).id; }
void send_and_lease(CatalogueEnv& e) {
    e.id = e.q.send("n").id;
    e.delivery = lease(e.leases);
}
void send_ready(CatalogueEnv& e) { e.id = e.q.send("v").id; }

}  // namespace delayq::test::catalogue
