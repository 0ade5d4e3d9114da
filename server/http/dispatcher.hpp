#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "http/message.hpp"
#include "http/router.hpp"

namespace delayq::server::http {

// What the server checks of every request's head before a route sees it.
struct DispatchRules {
    // Without an auth file: answer only requests whose Host is a loopback name or address.
    bool loopback_hosts_only = true;
    // Origins (`scheme://host[:port]`) whose pages a browser may let call the API, beside the
    // server's own (an Origin whose host[:port] is the request's Host).
    std::vector<std::string> allowed_origins;
};

// Decides on a request's head alone: the protocol (HTTP/1.1, one Host, a Transfer-Encoding it
// can read), the Host and Origin rules, the route (404, 405, a bad path) and the route's own
// checks (its token, its content type). A session reads the body only of a request it admits,
// so that whoever may not make a request cannot make the server hold its body either.
class Dispatcher {
  public:
    Dispatcher(DispatchRules rules, Router router);

    struct Admission {
        const Route* route = nullptr;  // null when refused
        std::optional<HttpResponse> refusal;
        // The request's framing cannot be trusted: nothing after it on the connection can.
        bool close = false;
    };
    // Fills in the request's path parameters (and what the route's check adds).
    Admission admit(HttpRequest& head) const;

    // The port the server listens on, which a Host naming a port must name (loopback only).
    void set_port(std::uint16_t port) { port_ = port; }
    const Router& router() const { return router_; }

  private:
    std::optional<HttpResponse> check_protocol(const HttpRequest& head) const;
    std::optional<HttpResponse> check_origin(const HttpRequest& head) const;

    DispatchRules rules_;
    Router router_;
    std::uint16_t port_ = 0;
};

}  // namespace delayq::server::http
