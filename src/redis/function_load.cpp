#include "redis/function_load.hpp"

#include <optional>
#include <string_view>

namespace delayq::detail {

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

std::optional<LibraryCheck> find_library(Connection& conn, const FunctionLibrary& library) {
    Reply list = conn.command({"FUNCTION", "LIST", "LIBRARYNAME", library.name, "WITHCODE"});
    if (list.is_error()) {
        return LibraryCheck{.outcome = LibraryCheck::Outcome::kRefused,
                            .detail = "FUNCTION LIST: " + list.str,
                            .command = "FUNCTION LIST",
                            .refusal = list};
    }
    const auto code = listed_code(list, library.name);
    if (!code) return std::nullopt;
    if (*code == library.code) return LibraryCheck{.outcome = LibraryCheck::Outcome::kReady};
    return LibraryCheck{.outcome = LibraryCheck::Outcome::kMismatch,
                        .detail = "the library " + std::string(library.name) +
                                  " on this server holds other code than this client's"};
}

LibraryCheck ensure_library(Connection& conn, const FunctionLibrary& library) {
    if (auto listed = find_library(conn, library)) return *listed;
    Reply loaded = conn.command({"FUNCTION", "LOAD", library.code});
    if (!loaded.is_error()) {
        return LibraryCheck{.outcome = LibraryCheck::Outcome::kReady, .loaded = true};
    }
    if (loaded.str.find("already exists") != std::string::npos) {
        // Another client loaded it between our LIST and LOAD: trust its code only once seen.
        if (auto listed = find_library(conn, library)) return *listed;
    }
    return LibraryCheck{.outcome = LibraryCheck::Outcome::kRefused,
                        .detail = "FUNCTION LOAD: " + loaded.str,
                        .command = "FUNCTION LOAD",
                        .refusal = loaded};
}

}  // namespace delayq::detail
