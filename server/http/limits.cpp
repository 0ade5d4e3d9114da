#include "http/limits.hpp"

#include <sys/resource.h>

#include <algorithm>

namespace delayq::server::http {
namespace {

// Files the process holds besides client sockets: Redis connections, the listener, logs.
constexpr rlim_t kReservedFiles = 256;

}  // namespace

std::size_t raise_open_file_limit(std::size_t connections) {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return connections;
    const rlim_t wanted = static_cast<rlim_t>(connections) + kReservedFiles;
    if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur < wanted) {
        const rlim_t old = limit.rlim_cur;
        limit.rlim_cur =
            limit.rlim_max == RLIM_INFINITY ? wanted : std::min(wanted, limit.rlim_max);
        if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) limit.rlim_cur = old;
    }
    if (limit.rlim_cur == RLIM_INFINITY) return connections;
    return limit.rlim_cur > kReservedFiles
               ? std::min<std::size_t>(connections, limit.rlim_cur - kReservedFiles)
               : 0;
}

}  // namespace delayq::server::http
