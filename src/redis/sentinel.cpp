#include "redis/sentinel.hpp"

#include <charconv>
#include <vector>

#include "delayq/error.hpp"
#include "redis/permission.hpp"

namespace delayq::detail {
namespace {

std::optional<int> parse_port(std::string_view text) {
    int port = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
    if (ec != std::errc{} || end != text.data() + text.size() || port < 1 || port > 65535) {
        return std::nullopt;
    }
    return port;
}

}  // namespace

std::optional<MasterAddress> parse_master_address(const Reply& reply) {
    if (reply.is_nil()) return std::nullopt;
    if (reply.is_error())
        throw ServerError("SENTINEL GET-MASTER-ADDR-BY-NAME failed: " + reply.str);
    // RESP2 answers a nil array (kNil, above) for an unknown name; an empty one is the same.
    if (reply.type == Reply::Type::kArray && reply.elements.empty()) return std::nullopt;
    if (reply.type != Reply::Type::kArray || reply.elements.size() != 2 ||
        reply.elements[0].type != Reply::Type::kString ||
        reply.elements[1].type != Reply::Type::kString) {
        throw ServerError(
            "SENTINEL GET-MASTER-ADDR-BY-NAME answered something other than an "
            "address");
    }
    const auto port = parse_port(reply.elements[1].str);
    if (!port || reply.elements[0].str.empty()) {
        throw ServerError("SENTINEL GET-MASTER-ADDR-BY-NAME answered a bad address: " +
                          reply.elements[0].str + " " + reply.elements[1].str);
    }
    return MasterAddress{reply.elements[0].str, *port};
}

std::string parse_role(const Reply& reply) {
    if (reply.is_error()) throw ServerError("ROLE failed: " + reply.str);
    if (reply.type != Reply::Type::kArray || reply.elements.empty() ||
        reply.elements[0].type != Reply::Type::kString) {
        throw ServerError("ROLE answered something other than a role");
    }
    return reply.elements[0].str;
}

std::optional<MasterAddress> parse_switch_master(std::string_view text,
                                                 std::string_view master_name) {
    std::vector<std::string_view> words;
    while (!text.empty() && words.size() <= 5) {
        const auto space = text.find(' ');
        words.push_back(text.substr(0, space));
        text = space == std::string_view::npos ? std::string_view{} : text.substr(space + 1);
    }
    if (words.size() != 5 || words[0] != master_name) return std::nullopt;
    const auto port = parse_port(words[4]);
    if (!port || words[3].empty()) return std::nullopt;
    return MasterAddress{std::string(words[3]), *port};
}

MasterAddress ask_sentinels(std::span<const Endpoint> sentinels, const std::string& master_name,
                            const SentinelConnect& connect) {
    std::string failures;
    std::size_t unknown = 0;
    for (const Endpoint& sentinel : sentinels) {
        std::string why;
        try {
            Connection conn = connect(sentinel);
            const Reply reply = conn.command({"SENTINEL", "GET-MASTER-ADDR-BY-NAME", master_name});
            check_permission(reply, "SENTINEL GET-MASTER-ADDR-BY-NAME");
            if (auto address = parse_master_address(reply)) return *address;
            ++unknown;
            why = "monitors no master named " + master_name;
        } catch (const Error& e) {
            // One sentinel down, or refusing, must not stop a client: the next may answer.
            why = e.what();
        }
        failures += (failures.empty() ? "" : "; ") + sentinel.describe() + ": " + why;
    }
    if (unknown == sentinels.size()) {
        throw ConfigurationError("no sentinel knows a master named " + master_name +
                                 " (is the name in the URL right?): " + failures);
    }
    throw ConnectionError("no sentinel named the master " + master_name + ": " + failures);
}

}  // namespace delayq::detail
