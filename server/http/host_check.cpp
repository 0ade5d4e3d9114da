#include "http/host_check.hpp"

#include <boost/algorithm/string/case_conv.hpp>
#include <boost/asio/ip/address.hpp>
#include <string>

namespace delayq::server::http {

bool is_loopback_address(std::string_view address) {
    if (address.size() > 2 && address.front() == '[' && address.back() == ']') {
        address = address.substr(1, address.size() - 2);
    }
    const std::string name = boost::algorithm::to_lower_copy(std::string(address));
    if (name == "localhost" || name.ends_with(".localhost")) return true;
    boost::system::error_code ec;
    const auto ip = boost::asio::ip::make_address(name, ec);
    return !ec && ip.is_loopback();
}

bool is_loopback_host(std::string_view host) {
    std::string_view name = host;
    if (!name.empty() && name.front() == '[') {
        const std::size_t close = name.find(']');
        if (close == std::string_view::npos) return false;
        const std::string_view rest = name.substr(close + 1);
        if (!rest.empty() && rest.front() != ':') return false;
        name = name.substr(0, close + 1);
    } else if (const std::size_t colon = name.rfind(':'); colon != std::string_view::npos) {
        name = name.substr(0, colon);
    }
    return !name.empty() && is_loopback_address(name);
}

}  // namespace delayq::server::http
