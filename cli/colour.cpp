#include "colour.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "io.hpp"

namespace delayq::cli {

bool colour_wanted(bool terminal, const char* no_color, const char* term) {
    if (!terminal) return false;
    if (no_color != nullptr && *no_color != '\0') return false;
    return term == nullptr || std::string_view(term) != "dumb";
}

bool colour_stdout() {
    static const bool on =
        colour_wanted(is_terminal(STDOUT_FILENO), std::getenv("NO_COLOR"), std::getenv("TERM"));
    return on;
}

std::string paint(std::string_view text, Colour colour) {
    const char* code = nullptr;
    switch (colour) {
        case Colour::kNone:
            return std::string(text);
        case Colour::kBold:
            code = "1";
            break;
        case Colour::kRed:
            code = "31";
            break;
        case Colour::kGreen:
            code = "32";
            break;
        case Colour::kYellow:
            code = "33";
            break;
        case Colour::kCyan:
            code = "36";
            break;
    }
    return std::string("\x1b[") + code + "m" + std::string(text) + "\x1b[0m";
}

}  // namespace delayq::cli
