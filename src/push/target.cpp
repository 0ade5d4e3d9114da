// validate_push_target: what a push target may say. The same rules serve the library, the
// command line and the service (they call this), and the scripts check the bounds again.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <string>
#include <string_view>

#include "delayq/error.hpp"
#include "delayq/push.hpp"

namespace delayq {
namespace {

using namespace std::string_view_literals;

// Set by the pusher itself, or meaningful only hop by hop: a target may not set them.
constexpr std::array kReservedHeaders = {"host"sv,
                                         "content-length"sv,
                                         "content-type"sv,
                                         "transfer-encoding"sv,
                                         "connection"sv,
                                         "keep-alive"sv,
                                         "upgrade"sv,
                                         "te"sv,
                                         "trailer"sv,
                                         "expect"sv,
                                         "proxy-authorization"sv,
                                         "proxy-connection"sv,
                                         "webhook-id"sv,
                                         "webhook-timestamp"sv,
                                         "webhook-signature"sv};
constexpr std::string_view kReservedPrefix = "delayq-";

// Cloud metadata services by name; their addresses are refused by push_address_refusal.
constexpr std::array kMetadataHosts = {"metadata.google.internal"sv, "metadata.goog"sv,
                                       "instance-data.ec2.internal"sv};

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

bool is_tchar(unsigned char c) {
    return std::isalnum(c) != 0 ||
           std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

bool printable(std::string_view text, bool tabs) {
    return std::all_of(text.begin(), text.end(), [tabs](unsigned char c) {
        return (c >= 0x20 && c < 0x7f) || (tabs && c == '\t');
    });
}

[[noreturn]] void refuse(const std::string& field, const std::string& why) {
    throw InvalidArgument("push target " + field + ": " + why);
}

// The host of an http(s) URL, brackets taken off an IPv6 literal.
std::string url_host(std::string_view url) {
    const std::size_t scheme_end = url.find("://");
    if (scheme_end == std::string_view::npos) refuse("url", "must start with http:// or https://");
    const std::string scheme = lower(url.substr(0, scheme_end));
    if (scheme != "http" && scheme != "https") {
        refuse("url", "must start with http:// or https://");
    }
    const std::string_view rest = url.substr(scheme_end + 3);
    const std::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
    if (authority.find('@') != std::string_view::npos) {
        refuse("url", "may not hold a user or password (set an Authorization header instead)");
    }
    if (url.find('#') != std::string_view::npos) refuse("url", "may not have a fragment");
    std::string_view host = authority;
    std::string_view port;
    if (host.starts_with('[')) {
        const std::size_t close = host.find(']');
        if (close == std::string_view::npos) refuse("url", "has an IPv6 address without ]");
        port = host.substr(close + 1);
        host = host.substr(1, close - 1);
        if (!port.empty() && !port.starts_with(':')) refuse("url", "has text after the address");
        if (!port.empty()) port.remove_prefix(1);
    } else if (const std::size_t colon = host.rfind(':'); colon != std::string_view::npos) {
        port = host.substr(colon + 1);
        host = host.substr(0, colon);
    }
    if (host.empty()) refuse("url", "has no host");
    if (!port.empty()) {
        const bool digits = port.size() <= 5 && std::all_of(port.begin(), port.end(), [](char c) {
                                return c >= '0' && c <= '9';
                            });
        if (!digits || std::stoi(std::string(port)) < 1 || std::stoi(std::string(port)) > 65535) {
            refuse("url", "has a port that is not 1 to 65535");
        }
    }
    return std::string(host);
}

bool looks_like_address(std::string_view host) {
    return host.find(':') != std::string_view::npos ||
           std::all_of(host.begin(), host.end(),
                       [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

void validate_url(std::string_view url) {
    if (url.empty()) refuse("url", "is empty");
    if (url.size() > kMaxPushUrlBytes) {
        refuse("url", "is longer than " + std::to_string(kMaxPushUrlBytes) + " bytes");
    }
    if (!printable(url, false) || url.find(' ') != std::string_view::npos) {
        refuse("url", "may hold printable ASCII only, without spaces (percent-encode the rest)");
    }
    const std::string host = url_host(url);
    const std::string name = lower(host);
    if (std::find(kMetadataHosts.begin(), kMetadataHosts.end(), name) != kMetadataHosts.end()) {
        refuse("url", host + " is a cloud metadata service");
    }
    // A name is checked on the addresses it resolves to, when a pusher connects.
    if (looks_like_address(host)) {
        std::optional<std::string> why;
        try {
            why = push_address_refusal(host);
        } catch (const InvalidArgument&) {
            refuse("url", "names an address that is not one: " + host);
        }
        if (why) refuse("url", *why);
    }
}

void validate_headers(const std::vector<PushHeader>& headers) {
    if (headers.size() > kMaxPushHeaders) {
        refuse("headers", "at most " + std::to_string(kMaxPushHeaders));
    }
    std::vector<std::string> seen;
    for (std::size_t i = 0; i < headers.size(); ++i) {
        const PushHeader& h = headers[i];
        const std::string field = "header " + std::to_string(i + 1);
        if (h.name.empty() || !std::all_of(h.name.begin(), h.name.end(),
                                           [](unsigned char c) { return is_tchar(c); })) {
            refuse(field, "a name is letters, digits and !#$%&'*+-.^_`|~");
        }
        const std::string name = lower(h.name);
        if (std::find(kReservedHeaders.begin(), kReservedHeaders.end(), name) !=
                kReservedHeaders.end() ||
            name.starts_with(kReservedPrefix)) {
            refuse(field, h.name + " is set by the pusher");
        }
        if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
            refuse(field, h.name + " is named twice");
        }
        seen.push_back(name);
        // The value is never quoted: it may be a credential.
        if (!printable(h.value, true)) refuse(field, "its value may hold printable ASCII only");
        if (h.name.size() + h.value.size() > kMaxPushHeaderBytes) {
            refuse(field, "longer than " + std::to_string(kMaxPushHeaderBytes) + " bytes");
        }
    }
}

}  // namespace

std::string_view to_string(PushMethod method) {
    switch (method) {
        case PushMethod::kPost:
            return "POST";
        case PushMethod::kPut:
            return "PUT";
        case PushMethod::kPatch:
            return "PATCH";
    }
    return "POST";
}

std::optional<PushMethod> parse_push_method(std::string_view text) {
    const std::string upper = [&] {
        std::string out(text);
        std::transform(out.begin(), out.end(), out.begin(),
                       [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
        return out;
    }();
    if (upper == "POST") return PushMethod::kPost;
    if (upper == "PUT") return PushMethod::kPut;
    if (upper == "PATCH") return PushMethod::kPatch;
    return std::nullopt;
}

void validate_push_target(const PushTarget& target) {
    validate_url(target.url);
    if (target.content_type.empty() || target.content_type.size() > 255 ||
        !printable(target.content_type, false)) {
        refuse("content type", "1 to 255 bytes of printable ASCII");
    }
    validate_headers(target.headers);
    if (target.request_timeout < kMinPushRequestTimeout ||
        target.request_timeout > kMaxPushRequestTimeout) {
        refuse("request timeout",
               "1 s to " + std::to_string(kMaxPushRequestTimeout.count() / 1000) + " s");
    }
    if (target.max_in_flight < 1 || target.max_in_flight > kMaxPushInFlight) {
        refuse("max in flight", "1 to " + std::to_string(kMaxPushInFlight));
    }
    if (!std::isfinite(target.rate) || target.rate < 0 || target.rate > kMaxPushRate) {
        refuse("rate", "0 (no limit) to " + std::to_string(static_cast<long long>(kMaxPushRate)) +
                           " per second");
    }
    if (target.secrets.size() > kMaxPushSecrets) {
        refuse("secrets", "at most " + std::to_string(kMaxPushSecrets));
    }
    for (std::size_t i = 0; i < target.secrets.size(); ++i) {
        try {
            validate_push_secret(target.secrets[i]);
        } catch (const InvalidArgument& e) {
            refuse("secret " + std::to_string(i + 1), e.what());
        }
    }
}

}  // namespace delayq
