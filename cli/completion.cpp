#include "completion.hpp"

#include <CLI/CLI.hpp>
#include <vector>

namespace delayq::cli {
namespace {

struct Choice {
    std::string word;
    std::string description;
};

// A command or group of the tree, and what may follow it.
struct Node {
    std::string path;  // "" for the root, "dead list" for a command of a group
    std::vector<Choice> subcommands;
    std::vector<Choice> options;
    std::vector<std::string> valued;  // options that take a value
    std::vector<std::string> files;   // of which those whose value is a file
    // Of those, the ones with a fixed set of values ("--state" -> "scheduled ready ..."), and
    // the values of the first argument ("bash zsh"): what a type name "a|b|c" lists.
    std::vector<std::pair<std::string, std::string>> values;
    std::string args;
};

// The values a type name lists ("bash|zsh" -> "bash zsh"), or "" for a name ("N", "DUR").
// CLI11 appends its validators' descriptions after a colon ("bash|zsh:{bash,zsh}").
std::string listed_values(const std::string& full_type_name) {
    const std::string type_name = full_type_name.substr(0, full_type_name.find(':'));
    if (type_name.find('|') == std::string::npos) return "";
    std::string out = type_name;
    for (char& c : out) c = c == '|' ? ' ' : c;
    return out;
}

void add_option(Node& node, const CLI::Option& opt, const std::string& word) {
    for (const auto& known : node.options) {
        if (known.word == word) return;  // send and consume declare --redis too, for now
    }
    node.options.push_back({word, opt.get_description()});
    if (opt.get_expected_max() == 0) return;  // a flag
    node.valued.push_back(word);
    if (opt.get_type_name() == "FILE") node.files.push_back(word);
    if (auto v = listed_values(opt.get_type_name()); !v.empty()) node.values.emplace_back(word, v);
}

// The root's help and version flags are its own; its other options are everyone's.
void add_options(const CLI::App& app, Node& node, bool global) {
    for (const CLI::Option* opt : app.get_options()) {
        if (opt->get_positional()) {
            if (!global && node.args.empty()) node.args = listed_values(opt->get_type_name());
            continue;
        }
        if (global && (opt == app.get_help_ptr() || opt == app.get_version_ptr())) continue;
        for (const auto& name : opt->get_lnames()) add_option(node, *opt, "--" + name);
        for (const auto& name : opt->get_snames()) add_option(node, *opt, "-" + name);
    }
}

void walk(const CLI::App& root, const CLI::App& app, const std::string& path,
          std::vector<Node>& out) {
    Node node;
    node.path = path;
    for (const CLI::App* sub : app.get_subcommands({})) {
        node.subcommands.push_back({sub->get_name(), sub->get_description()});
    }
    add_options(app, node, false);
    if (&app != &root) add_options(root, node, true);
    out.push_back(node);
    for (const CLI::App* sub : app.get_subcommands({})) {
        walk(root, *sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), out);
    }
}

std::vector<Node> tree(const CLI::App& root) {
    std::vector<Node> nodes;
    walk(root, root, "", nodes);
    return nodes;
}

// Single-quoted for either shell.
std::string quoted(const std::string& text) {
    std::string out = "'";
    for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string words(const std::vector<Choice>& choices) {
    std::string out;
    for (const auto& c : choices) out += (out.empty() ? "" : " ") + c.word;
    return out;
}

std::string words(const std::vector<std::string>& list) {
    std::string out;
    for (const auto& w : list) out += (out.empty() ? "" : " ") + w;
    return out;
}

// zsh's _describe entries: "word:description", a colon in the word escaped.
std::string described(const std::vector<Choice>& choices) {
    std::string out;
    for (const auto& c : choices) {
        std::string description = c.description.substr(0, c.description.find('\n'));
        out += (out.empty() ? "" : " ") + quoted(c.word + ":" + description);
    }
    return out;
}

constexpr const char* kBashWalk = R"(
_delayq() {
    local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}"
    local node="" word i subs opts valued files args
    COMPREPLY=()
    # The command path so far: words that name a subcommand, skipping options and their values.
    for ((i = 1; i < COMP_CWORD; i++)); do
        word="${COMP_WORDS[i]}"
        [[ "$word" == "--" ]] && return 0  # a command of the user's and its arguments follow
        _delayq_node "$node"
        if [[ " $valued " == *" $word "* ]]; then
            ((i++))
        elif [[ "$word" != -* && " $subs " == *" $word "* ]]; then
            node="${node:+$node }$word"
        fi
    done
    _delayq_node "$node"
    if ((COMP_CWORD > 1)) && [[ " $valued " == *" $prev "* ]]; then
        local values
        values=$(_delayq_values "$node" "$prev")
        if [[ -n "$values" ]]; then
            COMPREPLY=($(compgen -W "$values" -- "$cur"))
        elif [[ " $files " == *" $prev "* ]]; then
            COMPREPLY=($(compgen -f -- "$cur"))
        fi
        return 0
    fi
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    else
        COMPREPLY=($(compgen -W "$subs $args" -- "$cur"))
    fi
    return 0
}
complete -F _delayq delayq
)";

constexpr const char* kZshWalk = R"zsh(
_delayq() {
    local node="" word i prev="${words[CURRENT-1]}"
    local -a names subs opts valued files args values
    # The command path so far: words that name a subcommand, skipping options and their values.
    for ((i = 2; i < CURRENT; i++)); do
        word="${words[i]}"
        [[ "$word" == "--" ]] && return 0  # a command of the user's and its arguments follow
        _delayq_node "$node"
        if (( ${valued[(Ie)$word]} )); then
            ((i++))
        elif [[ "$word" != -* ]] && (( ${names[(Ie)$word]} )); then
            node="${node:+$node }$word"
        fi
    done
    _delayq_node "$node"
    if (( CURRENT > 2 && ${valued[(Ie)$prev]} )); then
        values=(${(z)"$(_delayq_values "$node" "$prev")"})
        if (( $#values )); then
            _describe -t values 'value' values
        elif (( ${files[(Ie)$prev]} )); then
            _files
        fi
        return 0
    fi
    if [[ "${words[CURRENT]}" == -* ]]; then
        _describe -t options 'option' opts
    elif (( $#subs )); then
        _describe -t commands 'command' subs
    elif (( $#args )); then
        _describe -t values 'value' args
    fi
}
if [[ "${funcstack[1]}" == "_delayq" ]]; then
    _delayq "$@"
else
    compdef _delayq delayq
fi
)zsh";

// _delayq_values NODE OPTION: the values of an option with a fixed set, for either shell.
std::string values_function(const CLI::App& root) {
    std::string out =
        "\n# Prints the values of an option that takes one of a fixed set, for a command path.\n"
        "_delayq_values() {\n    case \"$1 $2\" in\n";
    for (const Node& n : tree(root)) {
        for (const auto& [option, values] : n.values) {
            out +=
                "        " + quoted(n.path + " " + option) + ") echo " + quoted(values) + " ;;\n";
        }
    }
    return out + "    esac\n}\n";
}

}  // namespace

std::string bash_completion(const CLI::App& root) {
    std::string out =
        "# bash completion for delayq, generated by `delayq completion bash`\n"
        "# Load it with: source <(delayq completion bash)\n\n"
        "# Sets subs, opts, valued (options taking a value) and files for a command path.\n"
        "_delayq_node() {\n    case \"$1\" in\n";
    for (const Node& n : tree(root)) {
        out += "        " + quoted(n.path) + ")\n            subs=" + quoted(words(n.subcommands)) +
               "\n            opts=" + quoted(words(n.options)) +
               "\n            valued=" + quoted(words(n.valued)) +
               "\n            files=" + quoted(words(n.files)) +
               "\n            args=" + quoted(n.args) + " ;;\n";
    }
    out += "        *) subs='' opts='' valued='' files='' args='' ;;\n    esac\n}\n";
    return out + values_function(root) + kBashWalk;
}

std::string zsh_completion(const CLI::App& root) {
    std::string out =
        "#compdef delayq\n"
        "# zsh completion for delayq, generated by `delayq completion zsh`\n"
        "# Load it with: source <(delayq completion zsh)   (after compinit)\n\n"
        "# Sets names (of subcommands), subs and opts (word:description), valued and files for a\n"
        "# command path.\n"
        "_delayq_node() {\n    case \"$1\" in\n";
    for (const Node& n : tree(root)) {
        out += "        " + quoted(n.path) + ")\n            names=(" + words(n.subcommands) +
               ")\n            subs=(" + described(n.subcommands) + ")\n            opts=(" +
               described(n.options) + ")\n            valued=(" + words(n.valued) +
               ")\n            files=(" + words(n.files) + ")\n            args=(" + n.args +
               ") ;;\n";
    }
    out += "        *) names=() subs=() opts=() valued=() files=() args=() ;;\n    esac\n}\n";
    return out + values_function(root) + kZshWalk;
}

}  // namespace delayq::cli
