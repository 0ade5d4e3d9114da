#pragma once

#include <chrono>
#include <cstddef>
#include <string_view>

#include "http/message.hpp"

namespace delayq::server::http {

struct AccessRecord {
    std::string_view method;
    std::string_view target;
    std::string_view remote;
    std::string_view principal;  // the auth entry's name; never the token
    unsigned status = 0;
    std::size_t bytes_in = 0;
    std::size_t bytes_out = 0;
    std::chrono::steady_clock::duration duration{};
};

// One line of JSON per request on the spdlog logger "delayq.http" (level info), so that log
// tools can read it without a grammar of its own.
void log_access(const AccessRecord& record);

}  // namespace delayq::server::http
