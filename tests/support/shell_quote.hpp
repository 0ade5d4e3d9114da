#pragma once

#include <string>

namespace delayq::test {

// arg as one word for /bin/sh: in single quotes, each ' written as '\''.
inline std::string shell_quote(const std::string& arg) {
    std::string out = "'";
    for (char c : arg) {
        if (c == '\'') {
            out += "'\\''";
        } else {
            out += c;
        }
    }
    return out + "'";
}

}  // namespace delayq::test
