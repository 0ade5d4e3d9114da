#pragma once

#include <string>
#include <string_view>

namespace delayq::cli {

// SGR codes of the few colours the tables use.
enum class Colour { kNone, kBold, kRed, kGreen, kYellow, kCyan };

// Colour only for a terminal, and never when NO_COLOR is set to anything but "" (no-color.org)
// or TERM is "dumb". The arguments are getenv's answers (nullptr: unset).
bool colour_wanted(bool terminal, const char* no_color, const char* term);
// The decision for stdout, made once.
bool colour_stdout();

// `text` wrapped in the colour's escape codes, or as it is for kNone.
std::string paint(std::string_view text, Colour colour);

}  // namespace delayq::cli
