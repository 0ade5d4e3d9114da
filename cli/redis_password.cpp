#include "redis_password.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "errors.hpp"

namespace delayq::cli {

std::optional<std::string> redis_password(const std::string& file) {
    if (file.empty()) {
        const char* env = std::getenv("DELAYQ_REDIS_PASSWORD");
        if (env == nullptr || *env == '\0') return std::nullopt;
        return std::string(env);
    }
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        throw UsageError("--redis-password-file " + file + ": " + std::strerror(errno));
    }
    std::string password((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw UsageError("--redis-password-file " + file + ": read error");
    // The newline an editor or `echo` leaves is no part of the password.
    if (password.ends_with('\n')) password.pop_back();
    if (password.ends_with('\r')) password.pop_back();
    if (password.empty()) throw UsageError("--redis-password-file " + file + " is empty");
    return password;
}

}  // namespace delayq::cli
