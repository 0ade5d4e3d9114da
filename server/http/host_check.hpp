#pragma once

#include <string_view>

namespace delayq::server::http {

// Whether a Host header names this machine's loopback: localhost (or a name under .localhost),
// 127.0.0.0/8 or [::1], with or without a port. Without an auth file the server answers only
// such requests, so that a web page elsewhere cannot reach it by DNS rebinding.
bool is_loopback_host(std::string_view host);

// Whether a listen address is a loopback one (the same names and addresses, without a port).
bool is_loopback_address(std::string_view address);

}  // namespace delayq::server::http
