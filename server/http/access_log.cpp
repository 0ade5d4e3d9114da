#include "http/access_log.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <ctime>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>

#include "http/buffered_sink.hpp"

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

// Printable ASCII without '"' and '\': nearly every method, target, address and token name.
bool plain(std::string_view text) {
    for (const char c : text) {
        if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return false;
    }
    return true;
}

void append_string(fmt::memory_buffer& out, std::string_view text) {
    if (plain(text)) {
        out.push_back('"');
        out.append(text);
        out.push_back('"');
        return;
    }
    // The rest (escapes, control characters, bytes that are not UTF-8) as nlohmann-json writes it.
    const std::string quoted = nlohmann::json(std::string(text))
                                   .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    out.append(quoted);
}

void append_time(fmt::memory_buffer& out, std::chrono::system_clock::time_point at) {
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
    fmt::memory_buffer out;
    const auto put = [&out](std::string_view text) { out.append(text); };
    put(R"({"time":)");
    append_time(out, at);
    put(R"(,"method":)");
    append_string(out, r.method);
    put(R"(,"target":)");
    append_string(out, r.target);
    fmt::format_to(std::back_inserter(out), R"(,"status":{},"ms":{:.3f},"in":{},"out":{})",
                   r.status, std::chrono::duration<double, std::milli>(r.duration).count(),
                   r.bytes_in, r.bytes_out);
    put(R"(,"remote":)");
    append_string(out, r.remote);
    put(R"(,"token":)");
    append_string(out, r.principal);
    out.push_back('}');
    return fmt::to_string(out);
}

void flush_access_log() { access_logger().flush(); }

void log_access(const AccessRecord& r) {
    spdlog::logger& logger = access_logger();
    if (!logger.should_log(spdlog::level::info)) return;
    logger.info("{}", access_line(r, std::chrono::system_clock::now()));
}

}  // namespace delayq::server::http
