#include "redis/url.hpp"

#include <charconv>

#include "delayq/error.hpp"

namespace delayq::detail {
namespace {

[[noreturn]] void fail(std::string_view why) {
    throw InvalidArgument("invalid Redis URL: " + std::string(why) +
                          " (expected redis[s]://[user:password@]host[:port][/db] or "
                          "unix:///path/to/socket[?db=N])");
}

int parse_int(std::string_view text, int min, int max, std::string_view what) {
    int value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || value < min || value > max) {
        fail(std::string(what) + " must be a number from " + std::to_string(min) + " to " +
             std::to_string(max));
    }
    return value;
}

std::string percent_decode(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%') {
            if (i + 2 >= text.size()) fail("bad %-escape");
            unsigned value = 0;
            auto [end, ec] = std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16);
            if (ec != std::errc{} || end != text.data() + i + 3) fail("bad %-escape");
            out.push_back(static_cast<char>(value));
            i += 2;
        } else {
            out.push_back(text[i]);
        }
    }
    return out;
}

}  // namespace

std::string Endpoint::describe() const {
    if (!unix_path.empty()) return "unix:" + unix_path;
    return host + ":" + std::to_string(port);
}

Endpoint parse_url(std::string_view url) {
    Endpoint ep;
    constexpr std::string_view kUnix = "unix://";
    constexpr std::string_view kRedis = "redis://";
    if (url.starts_with(kUnix)) {
        std::string_view rest = url.substr(kUnix.size());
        if (auto q = rest.find('?'); q != std::string_view::npos) {
            std::string_view query = rest.substr(q + 1);
            rest = rest.substr(0, q);
            if (!query.starts_with("db=")) fail("the only unix:// parameter is db");
            ep.db = parse_int(query.substr(3), 0, 1'000'000, "db");
        }
        if (rest.empty() || rest.front() != '/') fail("a unix socket path must be absolute");
        ep.unix_path = std::string(rest);
        return ep;
    }
    constexpr std::string_view kRedisTls = "rediss://";
    std::string_view rest;
    if (url.starts_with(kRedis)) {
        rest = url.substr(kRedis.size());
    } else if (url.starts_with(kRedisTls)) {
        rest = url.substr(kRedisTls.size());
        ep.tls = true;
    } else {
        fail("unknown scheme");
    }
    if (auto slash = rest.find('/'); slash != std::string_view::npos) {
        std::string_view db = rest.substr(slash + 1);
        rest = rest.substr(0, slash);
        if (!db.empty()) ep.db = parse_int(db, 0, 1'000'000, "db");
    }
    if (auto at = rest.rfind('@'); at != std::string_view::npos) {
        std::string_view auth = rest.substr(0, at);
        rest = rest.substr(at + 1);
        if (auto colon = auth.find(':'); colon != std::string_view::npos) {
            ep.user = percent_decode(auth.substr(0, colon));
            ep.password = percent_decode(auth.substr(colon + 1));
        } else {
            ep.password = percent_decode(auth);  // redis://password@host, as redis-cli reads it
        }
    }
    std::string_view host = rest;
    if (!rest.empty() && rest.front() == '[') {  // [::1]:6380
        auto close = rest.find(']');
        if (close == std::string_view::npos) fail("unclosed [ in host");
        host = rest.substr(1, close - 1);
        rest = rest.substr(close + 1);
        if (!rest.empty()) {
            if (rest.front() != ':') fail("junk after ]");
            ep.port = parse_int(rest.substr(1), 1, 65535, "port");
        }
    } else if (auto colon = rest.rfind(':'); colon != std::string_view::npos) {
        host = rest.substr(0, colon);
        ep.port = parse_int(rest.substr(colon + 1), 1, 65535, "port");
    }
    if (host.empty()) fail("missing host");
    ep.host = std::string(host);
    return ep;
}

}  // namespace delayq::detail
