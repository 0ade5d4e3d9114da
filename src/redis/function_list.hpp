#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "redis/connection.hpp"

namespace delayq::detail {

// One library as FUNCTION LIST names it, without its code.
struct ListedLibrary {
    std::string name;
    std::vector<std::string> functions;  // sorted
};

// Whether `name` has the form cmake/lua_library.cmake gives delayq's libraries,
// delayq_<layout digits>_<12 lowercase hex digits>: what `delayq functions` may show and prune.
// Another library whose name merely starts with "delayq_" is someone else's.
bool is_delayq_library_name(std::string_view name);

// FUNCTION LIST LIBRARYNAME <pattern> (a glob), sorted by name. Throws PermissionError when the
// user may not FUNCTION LIST, ServerError for another refusal, ConnectionError as commands do.
std::vector<ListedLibrary> list_libraries(Connection& conn, std::string_view pattern);

// FUNCTION DELETE <name>: true when it deleted it, false when there was no such library (another
// operator deleted it first). Throws as list_libraries.
bool delete_library(Connection& conn, std::string_view name);

}  // namespace delayq::detail
