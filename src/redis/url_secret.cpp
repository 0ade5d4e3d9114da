#include "redis/url_secret.hpp"

#include <optional>

#include "delayq/url.hpp"

namespace delayq::detail {
namespace {

struct UserInfo {
    std::size_t begin;  // offset in the URL
    std::string_view text;
};

// The user info of a URL with an authority (scheme://user:password@host...), found as
// parse_seeds finds it: the authority ends at the first '/', the user info at its last '@'. One
// user info serves every server of a list (redis://user:password@h1:p1,h2:p2), and an IPv6
// host's brackets and colons come after it, so neither changes where the password is.
std::optional<UserInfo> user_info(std::string_view url) {
    const auto scheme_end = url.find("://");
    if (scheme_end == std::string_view::npos) return std::nullopt;
    const std::size_t begin = scheme_end + 3;
    std::string_view authority = url.substr(begin);
    authority = authority.substr(0, authority.find('/'));
    const auto at = authority.rfind('@');
    if (at == std::string_view::npos) return std::nullopt;
    return UserInfo{begin, authority.substr(0, at)};
}

// For masking only, more wary than user_info: a password with an unencoded '/' ends the
// authority early, and the URL is refused when parsed, but the text up to its last '@' is still
// a secret wherever the URL is shown.
std::optional<UserInfo> shown_user_info(std::string_view url) {
    if (auto info = user_info(url)) return info;
    const auto scheme_end = url.find("://");
    if (scheme_end == std::string_view::npos) return std::nullopt;
    const std::size_t begin = scheme_end + 3;
    const auto at = url.rfind('@');
    if (at == std::string_view::npos || at < begin) return std::nullopt;
    return UserInfo{begin, url.substr(begin, at - begin)};
}

}  // namespace

void apply_password(Endpoint& endpoint, std::string_view url, std::string password) {
    const auto info = user_info(url);
    if (info && info->text.find(':') == std::string_view::npos) {
        endpoint.user = std::move(endpoint.password);
    }
    endpoint.password = std::move(password);
}

}  // namespace delayq::detail

namespace delayq {

std::string masked_url(std::string_view url) {
    const auto info = detail::shown_user_info(url);
    if (!info) return std::string(url);
    const auto colon = info->text.find(':');
    // redis://alice:@host has no password to hide.
    if (colon + 1 == info->text.size()) return std::string(url);
    const std::size_t secret = colon == std::string_view::npos ? 0 : colon + 1;
    std::string out(url.substr(0, info->begin + secret));
    out += "***";
    out += url.substr(info->begin + info->text.size());
    return out;
}

}  // namespace delayq
