#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace delayq::test {

// A file's bytes, as they are; empty when it cannot be read.
inline std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace delayq::test
