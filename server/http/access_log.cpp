#include "http/access_log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <cmath>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

namespace delayq::server::http {
namespace {

spdlog::logger& access_logger() {
    static const std::shared_ptr<spdlog::logger> logger = [] {
        if (auto existing = spdlog::get("delayq.http")) return existing;
        // stderr, with the library's own log: spdlog's default logger writes to stdout.
        return spdlog::stderr_color_mt("delayq.http");
    }();
    return *logger;
}

}  // namespace

void log_access(const AccessRecord& r) {
    spdlog::logger& logger = access_logger();
    if (!logger.should_log(spdlog::level::info)) return;
    const double ms = std::chrono::duration<double, std::milli>(r.duration).count();
    const nlohmann::json line = {{"method", r.method}, {"target", r.target},
                                 {"status", r.status}, {"ms", std::round(ms * 1000) / 1000},
                                 {"in", r.bytes_in},   {"out", r.bytes_out},
                                 {"remote", r.remote}, {"token", r.principal}};
    logger.info("{}", line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace delayq::server::http
