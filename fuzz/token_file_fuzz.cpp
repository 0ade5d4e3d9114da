// The auth file of `delayq serve --auth-file`: its text parses into a table or is an
// AuthFileError naming the line; a table answers any token, for any queue, without crashing;
// and each entry prints back to a line that parses to the same entry.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "auth/token_table.hpp"

namespace {

using delayq::server::TokenTable;

void check(const TokenTable& table, std::string_view text) {
    std::string printed;
    for (const auto& entry : table.entries()) printed += entry.line() + "\n";
    const TokenTable again = TokenTable::parse(printed);
    if (again.entries().size() != table.entries().size()) __builtin_trap();
    for (std::size_t i = 0; i < again.entries().size(); ++i) {
        if (again.entries()[i].line() != table.entries()[i].line()) __builtin_trap();
    }
    // The token and the queue from the text itself, so that both can match an entry.
    const std::string_view token = text.substr(0, text.find(' '));
    (void)table.authorize(token, delayq::server::Scope::kSend, "orders");
    (void)table.authorize_any(token, delayq::server::Scope::kAdmin);
    for (const auto& entry : table.entries()) (void)entry.covers(entry.name);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the bytes as text
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        check(TokenTable::parse(text), text);
    } catch (const delayq::server::AuthFileError&) {
    }
    return 0;
}
