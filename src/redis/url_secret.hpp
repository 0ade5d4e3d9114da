#pragma once

#include <string>
#include <string_view>

#include "redis/url.hpp"

namespace delayq::detail {

// ClientOptions::password applied to an endpoint parse_url(url) or parse_seeds(url) gave (to
// each seed of a list alike): it replaces the URL's password, and a URL whose user info has no
// colon (redis://alice@host, which alone reads as a password, as redis-cli reads it) then names
// the user.
void apply_password(Endpoint& endpoint, std::string_view url, std::string password);

}  // namespace delayq::detail
