#pragma once

#include <string>

namespace delayq::test {

// The text of a queue pattern holding every byte a queue name may hold but the comma, which
// separates the patterns of --queues and of an auth file's line (and is refused in one), with
// `*` and `\` escaped: what the auth file's round trip is tested with.
inline std::string widest_queue_pattern() {
    std::string text;
    for (char c = '!'; c <= '~'; ++c) {
        if (c == '{' || c == '}' || c == ',') continue;
        if (c == '*' || c == '\\') text += '\\';
        text += c;
    }
    return text;
}

}  // namespace delayq::test
