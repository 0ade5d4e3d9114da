#include "http/access_log.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <ctime>
#include <iterator>
#include <memory>

#include "http/buffered_sink.hpp"
#include "json/text.hpp"

namespace delayq::server::http {
namespace {

spdlog::logger& access_logger() {
    static const std::shared_ptr<spdlog::logger> logger = [] {
        if (auto existing = spdlog::get("delayq.http")) return existing;
        // stderr, with the library's own log: spdlog's default logger writes to stdout.
        auto created = std::make_shared<spdlog::logger>(
            "delayq.http", std::make_shared<BufferedFdSink>(STDERR_FILENO));
        created->set_pattern("%v");
        spdlog::register_logger(created);
        return created;
    }();
    return *logger;
}

void append_time(std::string& out, std::chrono::system_clock::time_point at) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(at.time_since_epoch());
    const std::time_t seconds = std::chrono::duration_cast<std::chrono::seconds>(ms).count();
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    fmt::format_to(std::back_inserter(out), "\"{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z\"",
                   utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min,
                   utc.tm_sec, ms.count() % 1000);
}

}  // namespace

std::string access_line(const AccessRecord& r, std::chrono::system_clock::time_point at) {
    std::string out;
    out.reserve(256);
    out.append(R"({"time":)");
    append_time(out, at);
    out.append(R"(,"method":)");
    json::append_json_string(out, r.method);
    out.append(R"(,"target":)");
    json::append_json_string(out, r.target);
    fmt::format_to(std::back_inserter(out), R"(,"status":{},"ms":{:.3f},"in":{},"out":{})",
                   r.status, std::chrono::duration<double, std::milli>(r.duration).count(),
                   r.bytes_in, r.bytes_out);
    out.append(R"(,"remote":)");
    json::append_json_string(out, r.remote);
    out.append(R"(,"token":)");
    json::append_json_string(out, r.principal);
    out.push_back('}');
    return out;
}

void flush_access_log() { access_logger().flush(); }

void log_access(const AccessRecord& r) {
    spdlog::logger& logger = access_logger();
    if (!logger.should_log(spdlog::level::info)) return;
    const std::string line = access_line(r, std::chrono::system_clock::now());
    // As a ready string: no format string to parse.
    logger.log(spdlog::source_loc{}, spdlog::level::info, spdlog::string_view_t(line));
}

}  // namespace delayq::server::http
