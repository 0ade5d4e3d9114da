// delayq token list: the auth file's entries, without their hashes.
#include <CLI/CLI.hpp>
#include <auth/token_file.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "auth_file_input.hpp"
#include "command_set.hpp"
#include "errors.hpp"
#include "json_output.hpp"
#include "table.hpp"

namespace delayq::cli {
namespace {

// Enough of the hash to tell two entries apart, too little to be worth anything to anyone.
constexpr std::size_t kHashShown = 8;

template <class Items, class Name>
std::string joined(const Items& items, Name name) {
    std::string out;
    for (const auto& item : items) {
        if (!out.empty()) out += ',';
        out += name(item);
    }
    return out;
}

int list_tokens(const std::string& file, bool json) {
    const server::TokenTable table = read_auth_file(file);
    Table out({"NAME", "SCOPES", "QUEUES", "SHA256"});
    for (const auto& e : table.entries()) {
        const std::string scopes =
            joined(e.scopes, [](server::Scope s) { return std::string(server::scope_name(s)); });
        const std::string queues =
            joined(e.queues, [](const server::QueuePattern& p) { return p.text(); });
        const std::string hash = e.sha256_hex.substr(0, kHashShown) + "...";
        if (json) {
            Json line = {{"name", e.name},
                         {"scopes", Json::array()},
                         {"queues", Json::array()},
                         {"sha256_prefix", e.sha256_hex.substr(0, kHashShown)}};
            for (auto s : e.scopes) line["scopes"].push_back(std::string(server::scope_name(s)));
            for (const auto& p : e.queues) line["queues"].push_back(p.text());
            std::printf("%s\n", to_line(line).c_str());
        } else {
            out.add({e.name, scopes, queues, hash});
        }
    }
    if (json) return kExitOk;
    if (out.empty()) {
        std::printf("no tokens in %s\n", file.c_str());
    } else {
        std::printf("%s", out.render(colour_stdout()).c_str());
    }
    return kExitOk;
}

}  // namespace

void add_token_list(CommandSet& set) {
    auto file = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    CLI::App& cmd =
        set.add({.path = "token list",
                 .summary = "List the auth file's tokens: names, scopes, queue patterns",
                 .details = R"(Shows the first digits of each hash only, to tell entries apart.

Examples:
  delayq token list --auth-file auth
  delayq token list --auth-file auth --json | jq -r .name)"},
                [file, json](const Invocation&) { return list_tokens(*file, *json); });
    cmd.add_option("--auth-file", *file, "The auth file")->required();
    cmd.add_flag("--json", *json, "One JSON object a line");
}

}  // namespace delayq::cli
