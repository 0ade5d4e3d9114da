#include "http/buffered_sink.hpp"

#include <unistd.h>

#include <cerrno>

namespace delayq::server::http {

BufferedFdSink::BufferedFdSink(int fd, std::size_t capacity, std::chrono::milliseconds max_age)
    : fd_(fd), capacity_(capacity), max_age_(max_age) {
    buffer_.reserve(capacity_);
}

BufferedFdSink::~BufferedFdSink() {
    const std::lock_guard lock(mutex_);
    flush_();
}

void BufferedFdSink::sink_it_(const spdlog::details::log_msg& msg) {
    spdlog::memory_buf_t line;
    formatter_->format(msg, line);
    const auto now = std::chrono::steady_clock::now();
    if (buffer_.empty()) oldest_ = now;
    buffer_.append(line.data(), line.size());
    if (buffer_.size() >= capacity_ || now - oldest_ >= max_age_) flush_();
}

// A log cannot report its own failure anywhere better: what cannot be written is dropped.
void BufferedFdSink::flush_() {
    std::size_t done = 0;
    while (done < buffer_.size()) {
        const ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += static_cast<std::size_t>(n);
    }
    buffer_.clear();
}

}  // namespace delayq::server::http
