#include "delayq/function_admin.hpp"

#include <algorithm>

#include "client_core.hpp"
#include "delayq/error.hpp"
#include "redis/function_list.hpp"
#include "redis/function_load.hpp"
#include "redis/permission.hpp"
#include "scripts.hpp"

namespace delayq {
namespace {

// FUNCTION LIST's LIBRARYNAME glob; is_delayq_library_name then keeps delayq's own.
constexpr std::string_view kLibraryPattern = "delayq_*";

// A check that could not say (FUNCTION LIST or LOAD refused), as the failure it is.
[[noreturn]] void throw_refusal(const detail::LibraryCheck& check) {
    detail::check_permission(check.refusal, check.command, "delayq functions");
    if (check.refusal.str.starts_with("OOM")) {
        throw OutOfMemoryError(check.command +
                               " refused: Redis is out of memory (maxmemory reached); clients "
                               "run scripts until it has room: " +
                               check.refusal.str);
    }
    throw ServerError(check.detail);
}

}  // namespace

FunctionAdmin::FunctionAdmin(std::shared_ptr<detail::ClientCore> core) : core_(std::move(core)) {}

FunctionsStatus FunctionAdmin::status() const {
    const detail::FunctionLibrary& ours = detail::scripts::kLibrary;
    FunctionsStatus out;
    out.library = ours.name;
    bool ours_everywhere = true;  // this build's code wherever its name is
    for (detail::ConnectionPool* node : core_->topology().primaries()) {
        auto conn = node->acquire();
        for (auto& listed : detail::list_libraries(*conn, kLibraryPattern)) {
            if (!detail::is_delayq_library_name(listed.name)) continue;
            const auto known =
                std::find_if(out.libraries.begin(), out.libraries.end(),
                             [&](const LibraryInfo& info) { return info.name == listed.name; });
            if (known != out.libraries.end()) continue;
            LibraryInfo info{.name = std::move(listed.name),
                             .functions = std::move(listed.functions)};
            info.this_build = info.name == ours.name;
            out.libraries.push_back(std::move(info));
        }
        const auto check = detail::find_library(*conn, ours);
        if (check && check->outcome == detail::LibraryCheck::Outcome::kRefused) {
            throw_refusal(*check);
        }
        if (check && check->outcome == detail::LibraryCheck::Outcome::kMismatch) {
            ours_everywhere = false;
        }
        if (!check || check->outcome != detail::LibraryCheck::Outcome::kReady) {
            out.missing_on.push_back(conn->where());
        }
    }
    std::sort(out.libraries.begin(), out.libraries.end(),
              [](const LibraryInfo& a, const LibraryInfo& b) { return a.name < b.name; });
    out.loaded = out.missing_on.empty();
    for (LibraryInfo& info : out.libraries) info.code_matches = info.this_build && ours_everywhere;
    return out;
}

LoadResult FunctionAdmin::load() const {
    const detail::FunctionLibrary& ours = detail::scripts::kLibrary;
    LoadResult out{.status = LoadStatus::kAlreadyLoaded, .library = ours.name};
    // Every primary runs the calls of its slots, so each needs the library.
    for (detail::ConnectionPool* node : core_->topology().primaries()) {
        auto conn = node->acquire();
        const detail::LibraryCheck check = detail::ensure_library(*conn, ours);
        switch (check.outcome) {
            case detail::LibraryCheck::Outcome::kReady:
                if (check.loaded) out.status = LoadStatus::kLoaded;
                continue;
            case detail::LibraryCheck::Outcome::kMismatch:
                out.status = LoadStatus::kOtherCode;
                return out;
            case detail::LibraryCheck::Outcome::kRefused:
                throw_refusal(check);
        }
    }
    return out;
}

PruneResult FunctionAdmin::prune(const PruneOptions& options) const {
    const std::string_view ours = detail::scripts::kLibrary.name;
    for (const std::string& name : options.only) {
        if (name == ours) {
            throw InvalidArgument("the library " + name +
                                  " is this build's: prune never deletes it; nothing deleted");
        }
        if (!detail::is_delayq_library_name(name)) {
            throw InvalidArgument("\"" + name +
                                  "\" is not a delayq library's name (delayq_<layout>_<hash>); "
                                  "nothing deleted");
        }
    }
    const auto wanted = [&](const std::string& name) {
        return options.only.empty() ||
               std::find(options.only.begin(), options.only.end(), name) != options.only.end();
    };
    PruneResult out;
    for (detail::ConnectionPool* node : core_->topology().primaries()) {
        auto conn = node->acquire();
        for (const auto& listed : detail::list_libraries(*conn, kLibraryPattern)) {
            if (listed.name == ours || !detail::is_delayq_library_name(listed.name)) continue;
            if (!wanted(listed.name)) continue;
            if (options.dry_run || detail::delete_library(*conn, listed.name)) {
                out.libraries.push_back(listed.name);
            }
        }
    }
    std::sort(out.libraries.begin(), out.libraries.end());
    out.libraries.erase(std::unique(out.libraries.begin(), out.libraries.end()),
                        out.libraries.end());
    return out;
}

}  // namespace delayq
