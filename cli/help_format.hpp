#pragma once

#include <memory>

namespace CLI {
class Formatter;
}

namespace delayq::cli {

// Every --help ends alike: the command's own details, the global options (a command's help
// would not show them otherwise) and the exit statuses.
std::shared_ptr<CLI::Formatter> make_help_formatter();

}  // namespace delayq::cli
