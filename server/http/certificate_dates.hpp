#pragma once

#include <openssl/x509.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

namespace delayq::server::http {

// A certificate this close to its end is warned of: renewal tools act 30 days before (certbot),
// so 14 days left means renewal has failed for two weeks, with time yet to fix it.
inline constexpr std::chrono::hours kCertificateExpirySoon{14 * 24};

// What is wrong with the dates of `cert` (read from `file`), now: expired, not yet valid, or
// expiring within kCertificateExpirySoon, naming the file and the date; nullopt when nothing is.
// A warning, not an error: the server serves with it anyway, since an operator may be midway
// through replacing it.
std::optional<std::string> certificate_date_warning(const X509* cert,
                                                    const std::filesystem::path& file);

}  // namespace delayq::server::http
