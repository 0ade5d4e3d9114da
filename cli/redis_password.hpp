#pragma once

#include <optional>
#include <string>

namespace delayq::cli {

// The Redis password given apart from the URL: the file's content (without one trailing
// newline) when `file` is not empty, else $DELAYQ_REDIS_PASSWORD when set and not empty, else
// nullopt (the URL's password, if any, stands). Throws UsageError for a file that cannot be read
// or holds no password; the error never shows the file's content.
std::optional<std::string> redis_password(const std::string& file);

// The same for the sentinels of a redis+sentinel:// URL: --redis-sentinel-password-file, else
// $DELAYQ_REDIS_SENTINEL_PASSWORD.
std::optional<std::string> sentinel_password(const std::string& file);

}  // namespace delayq::cli
