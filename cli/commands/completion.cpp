// delayq completion bash|zsh: a shell completion script for delayq.
#include "completion.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "command_set.hpp"
#include "errors.hpp"

namespace delayq::cli {

void add_completion(CommandSet& set) {
    auto shell = std::make_shared<std::string>();
    const CLI::App* root = &set.root();
    CLI::App& cmd = set.add(
        {.path = "completion",
         .summary = "Print a shell completion script for bash or zsh",
         .details =
             R"(The script completes the commands, their options and the global options, as this
binary defines them.

Examples:
  source <(delayq completion bash)     # in ~/.bashrc
  source <(delayq completion zsh)      # in ~/.zshrc, after compinit)"},
        [shell, root](const Invocation&) {
            const std::string script =
                *shell == "bash" ? bash_completion(*root) : zsh_completion(*root);
            std::fwrite(script.data(), 1, script.size(), stdout);
            return kExitOk;
        });
    cmd.add_option("SHELL", *shell, "bash or zsh")
        ->required()
        ->type_name("bash|zsh")
        ->check(CLI::IsMember({"bash", "zsh"}));
}

}  // namespace delayq::cli
