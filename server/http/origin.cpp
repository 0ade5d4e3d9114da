#include "http/origin.hpp"

#include <boost/algorithm/string/case_conv.hpp>
#include <delayq/error.hpp>

namespace delayq::server::http {

std::string normalize_origin(std::string_view origin) {
    std::string out = boost::algorithm::to_lower_copy(std::string(origin));
    if (out.ends_with('/')) out.pop_back();
    return out;
}

std::optional<std::string> origin_authority(std::string_view origin) {
    const std::string normal = normalize_origin(origin);
    for (const std::string_view scheme : {"http://", "https://"}) {
        if (!normal.starts_with(scheme)) continue;
        std::string authority = normal.substr(scheme.size());
        if (authority.empty() || authority.find_first_of("/?#@ ") != std::string::npos) {
            return std::nullopt;
        }
        return authority;
    }
    return std::nullopt;
}

void check_allowed_origin(std::string_view origin) {
    if (!origin_authority(origin)) {
        throw InvalidArgument("--allowed-origin: \"" + std::string(origin) +
                              "\" is not an origin such as https://dashboard.example.com or "
                              "http://localhost:3000 (a scheme, a host and a port, no path)");
    }
}

}  // namespace delayq::server::http
