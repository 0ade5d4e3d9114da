#include "help_format.hpp"

#include <CLI/CLI.hpp>

namespace delayq::cli {
namespace {

constexpr const char* kExitStatus =
    "Exit status: 0 success; 1 a runtime failure (Redis unreachable, a timeout, what the command\n"
    "says above); 2 bad usage or input, and then nothing was written to Redis.\n";

class HelpFormatter : public CLI::Formatter {
  public:
    std::string make_footer(const CLI::App* app) const override {
        std::string out = CLI::Formatter::make_footer(app);
        if (!out.empty()) out += "\n";
        const CLI::App* root = app;
        while (root->get_parent() != nullptr) root = root->get_parent();
        if (root != app) {
            out += "Global options (before or after the command):\n";
            for (const CLI::Option* opt : root->get_options()) {
                if (opt == root->get_help_ptr() || opt == root->get_version_ptr()) continue;
                out += make_option(opt, false);
            }
            out += "\n";
        }
        return out + kExitStatus;
    }
};

}  // namespace

std::shared_ptr<CLI::Formatter> make_help_formatter() { return std::make_shared<HelpFormatter>(); }

}  // namespace delayq::cli
