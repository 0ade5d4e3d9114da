#pragma once

#include <cstdlib>
#include <string>

// The Redis server an example talks to: its command-line argument at `index` when given, else
// DELAYQ_REDIS_URL, else a local server on the default port.
inline std::string example_redis_url(int argc, char** argv, int index) {
    if (argc > index) return argv[index];
    const char* env = std::getenv("DELAYQ_REDIS_URL");
    return env != nullptr ? env : "redis://127.0.0.1:6379";
}
