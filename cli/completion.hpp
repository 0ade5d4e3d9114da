#pragma once

#include <string>

namespace CLI {
class App;
}

namespace delayq::cli {

// Shell completion scripts generated from the parsed command tree itself: every command, its
// options and the root's (global) options, so that they cannot drift from the binary.
std::string bash_completion(const CLI::App& root);
std::string zsh_completion(const CLI::App& root);

}  // namespace delayq::cli
