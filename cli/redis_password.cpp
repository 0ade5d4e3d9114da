#include "redis_password.hpp"

#include <cstdlib>

#include "secret_file.hpp"

namespace delayq::cli {

namespace {

std::optional<std::string> password_of(const std::string& file, const std::string& option,
                                       const char* variable) {
    if (file.empty()) {
        const char* env = std::getenv(variable);
        if (env == nullptr || *env == '\0') return std::nullopt;
        return std::string(env);
    }
    return read_secret_file(file, option);
}

}  // namespace

std::optional<std::string> redis_password(const std::string& file) {
    return password_of(file, "--redis-password-file", "DELAYQ_REDIS_PASSWORD");
}

std::optional<std::string> sentinel_password(const std::string& file) {
    return password_of(file, "--redis-sentinel-password-file", "DELAYQ_REDIS_SENTINEL_PASSWORD");
}

}  // namespace delayq::cli
