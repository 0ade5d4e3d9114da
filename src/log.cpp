#include "log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

namespace delayq::detail {

spdlog::logger& log() {
    static std::shared_ptr<spdlog::logger> logger = [] {
        if (auto existing = spdlog::get("delayq")) return existing;
        return spdlog::stderr_color_mt("delayq");
    }();
    return *logger;
}

}  // namespace delayq::detail
