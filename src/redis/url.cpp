#include "redis/url.hpp"

#include <algorithm>
#include <charconv>

#include "delayq/error.hpp"

namespace delayq::detail {
namespace {

[[noreturn]] void fail(std::string_view why) {
    throw InvalidArgument("invalid Redis URL: " + std::string(why) +
                          " (expected redis[s]://[user:password@]host[:port][,host[:port]...][/db]"
                          ", redis[s]+sentinel://[user:password@]host[:port][,host[:port]...]"
                          "/master-name[/db] or unix:///path/to/socket[?db=N])");
}

constexpr std::string_view kSentinel = "redis+sentinel://";
constexpr std::string_view kSentinelTls = "rediss+sentinel://";
// The port sentinels listen on unless told otherwise.
constexpr int kSentinelPort = 26379;

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

Endpoint parse_unix(std::string_view rest) {
    Endpoint ep;
    if (auto q = rest.find('?'); q != std::string_view::npos) {
        std::string_view query = rest.substr(q + 1);
        rest = rest.substr(0, q);
        if (!query.starts_with("db=")) fail("the only unix:// parameter is db");
        ep.db = parse_int(query.substr(3), 0, 1'000'000, "db");
    }
    if (rest.empty() || rest.front() != '/') fail("a unix socket path must be absolute");
    // A socket path may hold a comma; one that starts another absolute path reads as a list.
    if (rest.find(",/") != std::string_view::npos)
        fail("a unix:// URL names one socket, not a list");
    ep.unix_path = std::string(rest);
    return ep;
}

// One server of the list into `ep`: host[:port] or [IPv6][:port]. `which` starts each error
// ("server 2 of 3: ") when the URL names several, so that the bad one can be found.
void parse_host_port(std::string_view text, const std::string& which, Endpoint& ep) {
    std::string_view host = text;
    if (!text.empty() && text.front() == '[') {  // [::1]:6380
        const auto close = text.find(']');
        if (close == std::string_view::npos) fail(which + "unclosed [ in host");
        host = text.substr(1, close - 1);
        text = text.substr(close + 1);
        if (!text.empty()) {
            if (text.front() != ':') fail(which + "junk after ]");
            ep.port = parse_int(text.substr(1), 1, 65535, which + "port");
        }
    } else {
        if (auto colon = text.rfind(':'); colon != std::string_view::npos) {
            host = text.substr(0, colon);
            ep.port = parse_int(text.substr(colon + 1), 1, 65535, which + "port");
        }
        // Without brackets redis://::1 would read as host ":" and port 1.
        if (host.find(':') != std::string_view::npos) {
            fail(which + "an IPv6 address goes in brackets, as [::1]:6379");
        }
    }
    if (host.empty()) fail(which + "missing host");
    ep.host = std::string(host);
}

// The servers of "h1:p1,h2:p2", each `shared` (user, password, db, TLS) with its own address.
std::vector<Endpoint> parse_hosts(std::string_view hosts, const Endpoint& shared) {
    // Counted before anything is split, so that an overlong list costs nothing.
    const std::size_t count =
        static_cast<std::size_t>(std::count(hosts.begin(), hosts.end(), ',')) + 1;
    if (count > kMaxSeeds) {
        fail("it names " + std::to_string(count) + " servers, more than the limit of " +
             std::to_string(kMaxSeeds));
    }
    std::vector<Endpoint> out;
    out.reserve(count);
    for (std::size_t i = 1; i <= count; ++i) {
        const auto comma = hosts.find(',');
        const std::string_view text = hosts.substr(0, comma);
        hosts = comma == std::string_view::npos ? std::string_view{} : hosts.substr(comma + 1);
        const std::string which =
            count == 1 ? "" : "server " + std::to_string(i) + " of " + std::to_string(count) + ": ";
        if (text.empty() && count > 1) fail(which + "empty (a stray comma?)");
        parse_host_port(text, which, out.emplace_back(shared));
    }
    return out;
}

// The user info of "[[user]:password@]hosts" into `shared`; returns the hosts.
std::string_view take_user_info(std::string_view rest, Endpoint& shared) {
    const auto at = rest.rfind('@');
    if (at == std::string_view::npos) return rest;
    const std::string_view auth = rest.substr(0, at);
    if (auto colon = auth.find(':'); colon != std::string_view::npos) {
        shared.user = percent_decode(auth.substr(0, colon));
        shared.password = percent_decode(auth.substr(colon + 1));
    } else {
        shared.password = percent_decode(auth);  // redis://password@host, as redis-cli reads it
    }
    return rest.substr(at + 1);
}

}  // namespace

std::string Endpoint::describe() const {
    if (!unix_path.empty()) return "unix:" + unix_path;
    const bool v6 = host.find(':') != std::string::npos;
    return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::vector<Endpoint> parse_seeds(std::string_view url) {
    constexpr std::string_view kUnix = "unix://";
    constexpr std::string_view kRedis = "redis://";
    constexpr std::string_view kRedisTls = "rediss://";
    if (url.starts_with(kUnix)) return {parse_unix(url.substr(kUnix.size()))};
    if (is_sentinel_url(url)) {
        throw InvalidArgument(
            "a redis+sentinel:// URL names sentinels, not a Redis server, and "
            "is not taken here");
    }
    Endpoint shared;
    std::string_view rest;
    if (url.starts_with(kRedis)) {
        rest = url.substr(kRedis.size());
    } else if (url.starts_with(kRedisTls)) {
        rest = url.substr(kRedisTls.size());
        shared.tls = true;
    } else {
        fail("unknown scheme");
    }
    if (auto slash = rest.find('/'); slash != std::string_view::npos) {
        std::string_view db = rest.substr(slash + 1);
        rest = rest.substr(0, slash);
        if (!db.empty()) shared.db = parse_int(db, 0, 1'000'000, "db");
    }
    rest = take_user_info(rest, shared);
    return parse_hosts(rest, shared);
}

bool is_sentinel_url(std::string_view url) {
    return url.starts_with(kSentinel) || url.starts_with(kSentinelTls);
}

SentinelUrl parse_sentinel_url(std::string_view url) {
    SentinelUrl out;
    std::string_view rest;
    if (url.starts_with(kSentinel)) {
        rest = url.substr(kSentinel.size());
    } else if (url.starts_with(kSentinelTls)) {
        rest = url.substr(kSentinelTls.size());
        out.data.tls = true;
    } else {
        fail("not a sentinel URL");
    }
    const auto slash = rest.find('/');
    std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
    rest = rest.substr(0, slash);
    const auto name_end = path.find('/');
    const std::string_view name = path.substr(0, name_end);
    if (name.empty()) fail("a sentinel URL names the master after the sentinels, as /mymaster");
    out.master_name = percent_decode(name);
    if (name_end != std::string_view::npos) {
        const std::string_view db = path.substr(name_end + 1);
        if (!db.empty()) out.data.db = parse_int(db, 0, 1'000'000, "db");
    }
    rest = take_user_info(rest, out.data);
    Endpoint sentinel;
    sentinel.port = kSentinelPort;
    out.sentinels = parse_hosts(rest, sentinel);
    return out;
}

Endpoint parse_url(std::string_view url) {
    std::vector<Endpoint> seeds = parse_seeds(url);
    if (seeds.size() != 1) {
        // No syntax hint: the list is well formed, only not wanted here.
        throw InvalidArgument("invalid Redis URL: it names " + std::to_string(seeds.size()) +
                              " servers where one is expected");
    }
    return std::move(seeds.front());
}

}  // namespace delayq::detail
