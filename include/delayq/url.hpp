#pragma once

#include <string>
#include <string_view>

namespace delayq {

// `url` fit to be shown: a password in it (redis://user:PASSWORD@host, redis://PASSWORD@host) is
// replaced by `***`; anything else is returned as it is. Every URL delayq prints (errors, logs,
// `delayq serve`) goes through this.
std::string masked_url(std::string_view url);

}  // namespace delayq
