#pragma once

#include <string>

namespace delayq::cli {

// A secret kept in a file (a password, a signing secret): its content without one trailing
// newline. Throws UsageError naming `option` and the file when it cannot be read or is empty;
// the error never shows the content.
std::string read_secret_file(const std::string& file, const std::string& option);

}  // namespace delayq::cli
