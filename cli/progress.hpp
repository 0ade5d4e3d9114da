#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

namespace delayq::cli {

// "requeued [##########..........] 1000/2000": what the bar shows, `width` marks wide.
std::string progress_line(std::string_view what, std::size_t done, std::size_t total,
                          std::size_t width = 30);

// A progress bar on stderr for long bulk work, drawn only when stderr is a terminal: nothing at
// all goes to a stderr that is a file or a pipe. Redrawn in place at most ten times a second,
// and cleared at the end so that the command's own output follows on a clean line.
class Progress {
  public:
    Progress(std::string what, std::size_t total);
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    bool shown() const { return shown_; }
    void advance(std::size_t n);

  private:
    void draw();

    std::string what_;
    std::size_t total_;
    std::size_t done_ = 0;
    bool shown_;
    std::chrono::steady_clock::time_point drawn_at_{};
};

}  // namespace delayq::cli
