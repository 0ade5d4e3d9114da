#include "io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "errors.hpp"

namespace delayq::cli {

std::string read_input(const std::string& path) {
    const bool from_stdin = path == "-";
    const int fd = from_stdin ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw UsageError("cannot open " + path + ": " + std::strerror(errno));
    std::string out;
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const int err = errno;
            if (!from_stdin) ::close(fd);
            throw UsageError("cannot read " + (from_stdin ? std::string("stdin") : path) + ": " +
                             std::strerror(err));
        }
        if (n == 0) break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    if (!from_stdin) ::close(fd);
    return out;
}

bool write_all(int fd, std::string_view bytes) {
    return write_until_failure(fd, bytes) == bytes.size();
}

std::size_t write_until_failure(int fd, std::string_view bytes) {
    std::size_t written = 0;
    while (written < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        written += static_cast<std::size_t>(n);
    }
    return written;
}

bool is_terminal(int fd) { return ::isatty(fd) == 1; }

}  // namespace delayq::cli
