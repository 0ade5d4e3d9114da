#pragma once

#include <spdlog/sinks/base_sink.h>

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>

namespace delayq::server::http {

// A spdlog sink that writes to a file descriptor in blocks rather than a line at a time: a busy
// server logs a line per request, and a write(2) per line cost it a fifth of its CPU. Buffered
// lines are written when they reach `capacity`, when the oldest is `max_age` old as the next
// arrives, and on flush() (spdlog::flush_every for a quiet server; at the end). A process killed
// outright loses what is buffered.
class BufferedFdSink final : public spdlog::sinks::base_sink<std::mutex> {
  public:
    static constexpr std::size_t kCapacity = 64 * 1024;
    static constexpr std::chrono::milliseconds kMaxAge{200};

    explicit BufferedFdSink(int fd, std::size_t capacity = kCapacity,
                            std::chrono::milliseconds max_age = kMaxAge);
    ~BufferedFdSink() override;
    BufferedFdSink(const BufferedFdSink&) = delete;
    BufferedFdSink& operator=(const BufferedFdSink&) = delete;

  private:
    void sink_it_(const spdlog::details::log_msg& msg) override;
    void flush_() override;

    const int fd_;
    const std::size_t capacity_;
    const std::chrono::milliseconds max_age_;
    std::string buffer_;
    std::chrono::steady_clock::time_point oldest_{};
};

}  // namespace delayq::server::http
