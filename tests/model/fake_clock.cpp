#include "model/fake_clock.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>

namespace delayq::model {

FakeClock::FakeClock(std::string preload, std::int64_t start_us)
    : preload_(std::move(preload)), now_us_(start_us) {
    std::string templ = (std::filesystem::temp_directory_path() / "delayq-clock-XXXXXX").string();
    const int fd = ::mkstemp(templ.data());
    if (fd < 0) throw std::runtime_error("mkstemp failed for the fake clock");
    file_ = templ;
    void* m = MAP_FAILED;
    if (::ftruncate(fd, sizeof(std::int64_t)) == 0) {
        m = ::mmap(nullptr, sizeof(std::int64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    }
    ::close(fd);
    if (m == MAP_FAILED) {
        std::filesystem::remove(file_);
        throw std::runtime_error("cannot map the fake clock's file");
    }
    mapped_ = static_cast<std::int64_t*>(m);
    __atomic_store_n(mapped_, now_us_, __ATOMIC_SEQ_CST);
}

FakeClock::~FakeClock() {
    ::munmap(mapped_, sizeof(std::int64_t));
    std::error_code ec;
    std::filesystem::remove(file_, ec);
}

std::vector<std::string> FakeClock::server_environment() const {
    return {"LD_PRELOAD=" + preload_, "DELAYQ_FAKE_CLOCK_FILE=" + file_.string()};
}

void FakeClock::advance(std::int64_t us) {
    if (us < 0) throw std::logic_error("the fake clock only moves forward");
    now_us_ += us;
    __atomic_store_n(mapped_, now_us_, __ATOMIC_SEQ_CST);
}

TickingClock::TickingClock(FakeClock& clock)
    : thread_([&clock](const std::stop_token& stop) {
          constexpr std::int64_t kTickUs = 50'000;
          while (!stop.stop_requested()) {
              clock.advance(kTickUs);
              std::this_thread::sleep_for(std::chrono::milliseconds(5));
          }
      }) {}

}  // namespace delayq::model
