#include "secret_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "errors.hpp"

namespace delayq::cli {

std::string read_secret_file(const std::string& file, const std::string& option) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw UsageError(option + " " + file + ": " + std::strerror(errno));
    std::string secret((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw UsageError(option + " " + file + ": read error");
    // The newline an editor or `echo` leaves is no part of the secret.
    if (secret.ends_with('\n')) secret.pop_back();
    if (secret.ends_with('\r')) secret.pop_back();
    if (secret.empty()) throw UsageError(option + " " + file + " is empty");
    return secret;
}

}  // namespace delayq::cli
