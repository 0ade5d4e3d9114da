#include "redis/function_list.hpp"

#include <algorithm>

#include "delayq/error.hpp"
#include "redis/permission.hpp"

namespace delayq::detail {
namespace {

constexpr std::string_view kPrefix = "delayq_";
constexpr std::size_t kHashDigits = 12;  // cmake/lua_library.cmake keeps 12 of the SHA1's

bool is_decimal(char c) { return c >= '0' && c <= '9'; }
bool is_lower_hex(char c) { return is_decimal(c) || (c >= 'a' && c <= 'f'); }

bool all_of(std::string_view text, bool (*accepts)(char)) {
    return !text.empty() && std::all_of(text.begin(), text.end(), accepts);
}

// The names of a library's functions: FUNCTION LIST gives each as a flat array of fields.
std::vector<std::string> function_names(const Reply& functions) {
    std::vector<std::string> names;
    for (const Reply& function : functions.as_array()) {
        const auto& fields = function.as_array();
        for (std::size_t i = 0; i + 1 < fields.size(); i += 2) {
            if (fields[i].as_string() == "name") names.push_back(fields[i + 1].as_string());
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

void check_reply(const Reply& reply, const std::string& command) {
    check_permission(reply, command);
    if (reply.is_error()) throw ServerError(command + " failed: " + reply.str);
}

}  // namespace

bool is_delayq_library_name(std::string_view name) {
    if (!name.starts_with(kPrefix)) return false;
    name.remove_prefix(kPrefix.size());
    const std::size_t underscore = name.find('_');
    if (underscore == std::string_view::npos) return false;
    const std::string_view layout = name.substr(0, underscore);
    const std::string_view hash = name.substr(underscore + 1);
    return all_of(layout, is_decimal) && hash.size() == kHashDigits && all_of(hash, is_lower_hex);
}

std::vector<ListedLibrary> list_libraries(Connection& conn, std::string_view pattern) {
    const Reply list = conn.command({"FUNCTION", "LIST", "LIBRARYNAME", pattern});
    check_reply(list, "FUNCTION LIST");
    std::vector<ListedLibrary> out;
    for (const Reply& library : list.as_array()) {
        const auto& fields = library.as_array();
        ListedLibrary listed;
        for (std::size_t i = 0; i + 1 < fields.size(); i += 2) {
            const std::string& key = fields[i].as_string();
            if (key == "library_name") listed.name = fields[i + 1].as_string();
            if (key == "functions") listed.functions = function_names(fields[i + 1]);
        }
        out.push_back(std::move(listed));
    }
    std::sort(out.begin(), out.end(),
              [](const ListedLibrary& a, const ListedLibrary& b) { return a.name < b.name; });
    return out;
}

bool delete_library(Connection& conn, std::string_view name) {
    const Reply r = conn.command({"FUNCTION", "DELETE", name});
    if (r.is_error() && r.str.find("Library not found") != std::string::npos) return false;
    check_reply(r, "FUNCTION DELETE");
    return true;
}

}  // namespace delayq::detail
