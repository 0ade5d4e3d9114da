#include "auth/token_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace delayq::server {
namespace {

std::string read_all(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw AuthFileError("cannot read auth file " + path.string() + ": " + std::strerror(errno));
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Writes all of `text` to fd; false on a failure, with errno set.
bool write_all(int fd, std::string_view text) {
    while (!text.empty()) {
        const ssize_t n = ::write(fd, text.data(), text.size());
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        text.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

[[noreturn]] void write_failed(const std::filesystem::path& path) {
    throw AuthFileError("cannot write auth file " + path.string() + ": " + std::strerror(errno));
}

// Writes text to the file opened with `flags` (created with mode 0600), synced before it is
// closed; throws AuthFileError.
void write_synced(const std::filesystem::path& path, int flags, std::string_view text) {
    const int fd = ::open(path.c_str(), flags | O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) write_failed(path);
    const bool ok = write_all(fd, text) && ::fsync(fd) == 0;
    const int saved = errno;
    ::close(fd);
    if (!ok) {
        errno = saved;
        write_failed(path);
    }
}

// The first white-space separated field of a line ("" for a blank one).
std::string_view first_field(std::string_view line) {
    const auto start = line.find_first_not_of(" \t");
    if (start == std::string_view::npos) return {};
    line.remove_prefix(start);
    return line.substr(0, line.find_first_of(" \t"));
}

void check_name(const std::string& name) {
    if (name.empty() || name.starts_with('#') ||
        name.find_first_of(" \t\r\n") != std::string::npos) {
        throw AuthFileError(
            "a token name must be non-empty, without white space, not starting with #");
    }
}

// A comma separates a line's patterns and has no escape there, yet a queue name may hold one:
// `a,b` written to a line would read back as `a` and `b`, queues the token was never given.
void check_patterns(const std::vector<QueuePattern>& queues) {
    for (const QueuePattern& p : queues) {
        if (p.text().find(',') != std::string::npos) {
            throw AuthFileError("queue pattern \"" + p.text() +
                                "\" holds a comma, which the auth file reads as two patterns");
        }
    }
}

}  // namespace

TokenTable load_token_file(const std::filesystem::path& path) {
    return TokenTable::parse(read_all(path));
}

std::string add_token(const std::filesystem::path& path, const std::string& name,
                      const std::vector<Scope>& scopes, const std::vector<QueuePattern>& queues) {
    check_name(name);
    if (scopes.empty()) throw AuthFileError("a token needs at least one scope");
    if (queues.empty()) throw AuthFileError("a token needs at least one queue pattern");
    check_patterns(queues);
    std::string existing;
    if (std::filesystem::exists(path)) existing = read_all(path);
    const TokenTable table = TokenTable::parse(existing);  // a broken file is refused
    for (const auto& e : table.entries()) {
        if (e.name == name) throw AuthFileError("a token named \"" + name + "\" exists already");
    }
    std::string token = new_token();
    const TokenEntry entry{name, token_sha256_hex(token), scopes, queues};
    std::string line = entry.line() + '\n';
    if (!existing.empty() && existing.back() != '\n') line.insert(line.begin(), '\n');
    write_synced(path, O_APPEND, line);
    return token;
}

bool revoke_token(const std::filesystem::path& path, std::string_view name) {
    const std::string text = read_all(path);
    TokenTable::parse(text);  // a broken file is refused, not rewritten
    std::string kept;
    bool found = false;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (first_field(line) == name) {
            found = true;
            continue;
        }
        kept += line + '\n';
    }
    if (!found) return false;
    const std::filesystem::path temp = path.string() + ".new";
    try {
        write_synced(temp, O_TRUNC, kept);
        if (::rename(temp.c_str(), path.c_str()) != 0) write_failed(path);
    } catch (const AuthFileError&) {
        ::unlink(temp.c_str());
        throw;
    }
    return true;
}

}  // namespace delayq::server
