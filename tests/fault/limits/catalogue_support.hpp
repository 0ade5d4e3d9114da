#pragma once

// Shared by the files that build the bad-input catalogue's rows.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fault/limits/bad_input_catalogue.hpp"

namespace delayq::test::catalogue {

using namespace std::chrono_literals;
using Rows = std::vector<CatalogueCase>;
using CliCheck = std::function<void(CatalogueEnv&, const CliResult&)>;

// 9999-12-31T23:59:59.999Z in unix ms: the latest due time delayq accepts (design.md, limits).
inline constexpr std::int64_t kMaxTimeMs = 253'402'300'799'999;
inline constexpr std::size_t kMiB = std::size_t{1024} * 1024;

inline TimePoint at_ms(std::int64_t ms) { return TimePoint(Duration(ms)); }
inline std::int64_t ms_of(TimePoint t) { return t.time_since_epoch().count(); }

// Every byte value, twice, with runs of NULs: a payload no text handling survives by accident.
std::string all_bytes();
Delivery lease(Leases& leases, Duration visibility = 30s);
// Sends, reads back, leases and acks one message: "works exactly" for a valid send.
void round_trip(const Client& client, Queue& q, const std::string& payload,
                const SendOptions& options = {});
std::string first_line(const std::string& text);
// For a CLI row that sent one message: it must hold exactly `payload` / be due then.
CliCheck stored_payload(std::string payload);
CliCheck stored_due(std::int64_t due_ms);

// Preparations: a message scheduled in an hour with id "r"; one leased; one ready.
void send_scheduled(CatalogueEnv& e);
void send_and_lease(CatalogueEnv& e);
void send_ready(CatalogueEnv& e);

// The rows, by topic.
void payload_rows(Rows& rows);
void attempts_rows(Rows& rows);
void batch_rows(Rows& rows);
void delay_rows(Rows& rows);
void at_rows(Rows& rows);
void expire_rows(Rows& rows);
void reschedule_rows(Rows& rows);
void nack_rows(Rows& rows);
void visibility_rows(Rows& rows);
void queue_name_rows(Rows& rows);
void id_rows(Rows& rows);

}  // namespace delayq::test::catalogue
