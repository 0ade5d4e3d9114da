#include "http/certificate_dates.hpp"

#include <openssl/asn1.h>

#include <ctime>

namespace delayq::server::http {
namespace {

std::string iso_date(const ASN1_TIME* time) {
    std::tm tm{};
    if (ASN1_TIME_to_tm(time, &tm) != 1) return "an unreadable date";
    char text[32];
    const std::size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return n != 0 ? std::string(text, n) : "an unreadable date";
}

}  // namespace

std::optional<std::string> certificate_date_warning(const X509* cert,
                                                    const std::filesystem::path& file) {
    if (cert == nullptr) return std::nullopt;
    const ASN1_TIME* not_before = X509_get0_notBefore(cert);
    const ASN1_TIME* not_after = X509_get0_notAfter(cert);
    const std::string what = "--listen-tls-cert: the certificate in " + file.string();
    // X509_cmp_current_time: 0 for a date it cannot read, which is no warning's business.
    if (X509_cmp_current_time(not_after) < 0) {
        return what + " expired on " + iso_date(not_after) + "; clients will refuse it";
    }
    if (X509_cmp_current_time(not_before) > 0) {
        return what + " is not valid before " + iso_date(not_before) +
               "; clients will refuse it until then";
    }
    int days = 0;
    int seconds = 0;
    if (ASN1_TIME_diff(&days, &seconds, nullptr, not_after) == 1 &&
        std::chrono::days(days) + std::chrono::seconds(seconds) < kCertificateExpirySoon) {
        return what + " expires on " + iso_date(not_after) + ", in " + std::to_string(days) +
               (days == 1 ? " day" : " days") + "; renew it (SIGHUP re-reads it)";
    }
    return std::nullopt;
}

}  // namespace delayq::server::http
