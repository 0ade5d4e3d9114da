#include "progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "io.hpp"

namespace delayq::cli {
namespace {

constexpr auto kRedrawEvery = std::chrono::milliseconds(100);

}  // namespace

std::string progress_line(std::string_view what, std::size_t done, std::size_t total,
                          std::size_t width) {
    done = std::min(done, total);
    const std::size_t filled = total == 0 ? width : done * width / total;
    std::string bar(filled, '#');
    bar.resize(width, '.');
    return std::string(what) + " [" + bar + "] " + std::to_string(done) + "/" +
           std::to_string(total);
}

Progress::Progress(std::string what, std::size_t total)
    : what_(std::move(what)), total_(total), shown_(is_terminal(STDERR_FILENO)) {
    draw();
}

Progress::~Progress() {
    if (!shown_) return;
    // Blank the line: the command's own summary follows where the bar was.
    const std::size_t width = progress_line(what_, total_, total_).size();
    std::fprintf(stderr, "\r%s\r", std::string(width, ' ').c_str());
    std::fflush(stderr);
}

void Progress::advance(std::size_t n) {
    done_ += n;
    if (std::chrono::steady_clock::now() - drawn_at_ >= kRedrawEvery || done_ >= total_) draw();
}

void Progress::draw() {
    if (!shown_) return;
    std::fprintf(stderr, "\r%s", progress_line(what_, done_, total_).c_str());
    std::fflush(stderr);
    drawn_at_ = std::chrono::steady_clock::now();
}

}  // namespace delayq::cli
