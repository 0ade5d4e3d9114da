#include "redis/function_load.hpp"

#include <optional>
#include <string_view>

namespace delayq::detail {
namespace {

// The code of `name` in a FUNCTION LIST ... WITHCODE reply, or nullopt when it lists no such
// library. LIBRARYNAME is a pattern, so the names are compared here.
std::optional<std::string> listed_code(const Reply& list, std::string_view name) {
    for (const Reply& library : list.as_array()) {
        const auto& fields = library.as_array();
        std::optional<std::string> listed_name;
        std::optional<std::string> code;
        for (std::size_t i = 0; i + 1 < fields.size(); i += 2) {
            const std::string& key = fields[i].as_string();
            if (key == "library_name") listed_name = fields[i + 1].as_string();
            if (key == "library_code") code = fields[i + 1].as_string();
        }
        if (listed_name == name) return code.value_or(std::string());
    }
    return std::nullopt;
}

// What the node holds under our name: ready, mismatch, or nullopt when nothing; kRefused when
// it will not say.
std::optional<LibraryCheck> check_listed(Connection& conn, const FunctionLibrary& library) {
    Reply list = conn.command({"FUNCTION", "LIST", "LIBRARYNAME", library.name, "WITHCODE"});
    if (list.is_error()) {
        return LibraryCheck{LibraryCheck::Outcome::kRefused, "FUNCTION LIST: " + list.str};
    }
    const auto code = listed_code(list, library.name);
    if (!code) return std::nullopt;
    if (*code == library.code) return LibraryCheck{LibraryCheck::Outcome::kReady, {}};
    return LibraryCheck{LibraryCheck::Outcome::kMismatch,
                        "the library " + std::string(library.name) +
                            " on this server holds other code than this client's"};
}

}  // namespace

LibraryCheck ensure_library(Connection& conn, const FunctionLibrary& library) {
    if (auto listed = check_listed(conn, library)) return *listed;
    Reply loaded = conn.command({"FUNCTION", "LOAD", library.code});
    if (!loaded.is_error()) return LibraryCheck{LibraryCheck::Outcome::kReady, {}};
    if (loaded.str.find("already exists") != std::string::npos) {
        // Another client loaded it between our LIST and LOAD: trust its code only once seen.
        if (auto listed = check_listed(conn, library)) return *listed;
    }
    return LibraryCheck{LibraryCheck::Outcome::kRefused, "FUNCTION LOAD: " + loaded.str};
}

}  // namespace delayq::detail
