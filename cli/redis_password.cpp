#include "redis_password.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "errors.hpp"

namespace delayq::cli {

namespace {

std::optional<std::string> password_of(const std::string& file, const std::string& option,
                                       const char* variable) {
    if (file.empty()) {
        const char* env = std::getenv(variable);
        if (env == nullptr || *env == '\0') return std::nullopt;
        return std::string(env);
    }
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        throw UsageError(option + " " + file + ": " + std::strerror(errno));
    }
    std::string password((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw UsageError(option + " " + file + ": read error");
    // The newline an editor or `echo` leaves is no part of the password.
    if (password.ends_with('\n')) password.pop_back();
    if (password.ends_with('\r')) password.pop_back();
    if (password.empty()) throw UsageError(option + " " + file + " is empty");
    return password;
}

}  // namespace

std::optional<std::string> redis_password(const std::string& file) {
    return password_of(file, "--redis-password-file", "DELAYQ_REDIS_PASSWORD");
}

std::optional<std::string> sentinel_password(const std::string& file) {
    return password_of(file, "--redis-sentinel-password-file", "DELAYQ_REDIS_SENTINEL_PASSWORD");
}

}  // namespace delayq::cli
