#pragma once

// The operator's view of delayq's Redis function library on a server (`delayq functions`):
// load this build's library ahead of the clients, see what the server holds, and remove the
// libraries of other builds. Clients need none of it: they load what is missing themselves.
#include <memory>
#include <string>
#include <vector>

namespace delayq {

namespace detail {
class ClientCore;
}

// One delayq library a server holds (a name of the form delayq_<layout>_<hash>).
struct LibraryInfo {
    std::string name;
    // It has this build's name, and `code_matches` says whether it holds this build's code:
    // another code under our name (forged, or a build that differs) is never called.
    bool this_build = false;
    bool code_matches = false;
    std::vector<std::string> functions{};  // sorted
};

// On a Redis Cluster, of every primary: each runs the calls of its own slots, so each needs the
// library.
struct FunctionsStatus {
    std::string library{};  // this build's library, delayq_<layout>_<hash>
    // This build's library is loaded with exactly this build's code (on every primary):
    // clients call it.
    bool loaded = false;
    // Every delayq library on the server (any primary), by name. Of this build's, code_matches
    // holds when every primary that has it holds this build's code.
    std::vector<LibraryInfo> libraries{};
    // The primaries (host:port) without this build's library and code: empty when loaded.
    std::vector<std::string> missing_on{};
};

enum class LoadStatus {
    kLoaded,         // this call loaded it
    kAlreadyLoaded,  // it was there already, with exactly this build's code
    // A library of this build's name holds other code: nothing was changed, and no client of
    // this build calls it (they run scripts) until an operator deletes it.
    kOtherCode,
};

struct LoadResult {
    LoadStatus status = LoadStatus::kLoaded;
    std::string library{};
};

struct PruneOptions {
    // Say what would be deleted, delete nothing.
    bool dry_run = false;
    // Only these libraries (those a person confirmed after a dry run, say); empty: every delayq
    // library but this build's. Names that are gone by then are skipped.
    std::vector<std::string> only{};
};

struct PruneResult {
    // Deleted, or with dry_run those that would be, by name.
    std::vector<std::string> libraries{};
};

// From Client::functions(). Cheap to copy; thread-safe. Needs FUNCTION LIST (status), and
// FUNCTION LOAD (load) or FUNCTION DELETE (prune): `delayq acl --functions`. A refused command
// throws PermissionError, a full Redis refusing a load OutOfMemoryError, another refusal
// ServerError; connection failures as every operation. Asked for explicitly, these send their
// FUNCTION commands whatever ClientOptions::engine says (kScripts keeps only the operations
// off the library).
class FunctionAdmin {
  public:
    // What the server (every primary) holds; loads and deletes nothing.
    FunctionsStatus status() const;
    // Loads this build's library unless it is there (idempotent); never replaces a library.
    LoadResult load() const;
    // Deletes delayq libraries other than this build's; never this build's, never a library
    // whose name is not a delayq library's. A client that still calls a deleted library (an
    // older build during a rolling upgrade) loads it again on its next call. InvalidArgument,
    // and nothing deleted, when `only` names this build's library or a name of another form.
    PruneResult prune(const PruneOptions& options = {}) const;

  private:
    friend class Client;
    explicit FunctionAdmin(std::shared_ptr<detail::ClientCore> core);
    std::shared_ptr<detail::ClientCore> core_;
};

}  // namespace delayq
