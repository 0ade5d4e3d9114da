#pragma once

#include <chrono>
#include <cstddef>
#include <string>
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

// One line of JSON per request on the spdlog logger "delayq.http" (level info, stderr, the line
// alone), so that log tools read it without a grammar of its own. Lines are written in blocks
// (BufferedFdSink): within 200 ms while requests come, within spdlog::flush_every's interval
// otherwise, and all of them when the logger is flushed.
void log_access(const AccessRecord& record);

// Writes out the lines still buffered (at a graceful stop).
void flush_access_log();

// The line, without its newline: {"time" (RFC 3339, UTC, ms), "method", "target", "status",
// "ms", "in", "out", "remote", "token"}.
std::string access_line(const AccessRecord& record, std::chrono::system_clock::time_point at);

}  // namespace delayq::server::http
