#pragma once

#include <string>
#include <string_view>

namespace delayq::cli {

// All of a file's bytes ("-": stdin), binary-safe. Throws UsageError when it cannot be read.
std::string read_input(const std::string& path);
// Writes all bytes to a descriptor; false when it failed (a closed pipe, say).
bool write_all(int fd, std::string_view bytes);
// The same, saying how far it got: the number of bytes written, all of them unless it failed.
std::size_t write_until_failure(int fd, std::string_view bytes);
bool is_terminal(int fd);

}  // namespace delayq::cli
