#include "redis/redirect.hpp"

#include <charconv>
#include <string_view>

#include "redis/key_slot.hpp"

namespace delayq::detail {
namespace {

std::optional<int> parse_number(std::string_view text, int max) {
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || value < 0 || value > max) {
        return std::nullopt;
    }
    return value;
}

}  // namespace

std::optional<Redirect> parse_redirect(const Reply& reply) {
    if (!reply.is_error()) return std::nullopt;
    std::string_view text = reply.str;
    Redirect out;
    if (text.starts_with("MOVED ")) {
        out.kind = Redirect::Kind::kMoved;
        text.remove_prefix(6);
    } else if (text.starts_with("ASK ")) {
        out.kind = Redirect::Kind::kAsk;
        text.remove_prefix(4);
    } else {
        return std::nullopt;
    }
    const auto space = text.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    const auto slot = parse_number(text.substr(0, space), kClusterSlots - 1);
    // host:port, where an IPv6 host has colons of its own: the port follows the last one.
    const std::string_view where = text.substr(space + 1);
    const auto colon = where.rfind(':');
    if (!slot || colon == std::string_view::npos) return std::nullopt;
    const auto port = parse_number(where.substr(colon + 1), 65535);
    if (!port || *port == 0) return std::nullopt;
    out.slot = *slot;
    out.host = std::string(where.substr(0, colon));
    if (out.host.size() > 2 && out.host.front() == '[' && out.host.back() == ']') {
        out.host = out.host.substr(1, out.host.size() - 2);
    }
    out.port = *port;
    return out;
}

bool is_transient_refusal(const Reply& reply) {
    if (!reply.is_error()) return false;
    const std::string& e = reply.str;
    return e.starts_with("TRYAGAIN") || e.starts_with("CLUSTERDOWN") || e.starts_with("LOADING") ||
           e.starts_with("MASTERDOWN");
}

bool is_read_only(const Reply& reply) {
    return reply.is_error() && reply.str.starts_with("READONLY");
}

}  // namespace delayq::detail
