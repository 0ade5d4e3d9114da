#include "http/listen_address.hpp"

#include <charconv>
#include <delayq/error.hpp>

namespace delayq::server::http {

ListenAddress parse_listen_address(std::string_view text) {
    const auto bad = [&](const char* why) {
        throw InvalidArgument("--listen \"" + std::string(text) + "\": " + why +
                              " (expected HOST:PORT, e.g. 127.0.0.1:7380)");
    };
    const std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) bad("no port");
    std::string_view host = text.substr(0, colon);
    const std::string_view port = text.substr(colon + 1);
    if (!host.empty() && host.front() == '[') {
        if (host.size() < 3 || host.back() != ']') bad("an IPv6 address needs its closing ']'");
        host = host.substr(1, host.size() - 2);
    } else if (host.find(':') != std::string_view::npos) {
        bad("an IPv6 address goes in brackets, [::1]:7380");
    }
    ListenAddress out;
    out.host = host.empty() ? "0.0.0.0" : std::string(host);
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (port.empty() || ec != std::errc() || end != port.data() + port.size() || value > 65535) {
        bad("the port is not a number from 0 to 65535");
    }
    out.port = static_cast<std::uint16_t>(value);
    return out;
}

}  // namespace delayq::server::http
