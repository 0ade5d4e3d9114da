// Preloaded into the model test's redis-server (LD_PRELOAD): the wall clock (gettimeofday,
// clock_gettime(CLOCK_REALTIME*), time) reads unix microseconds from the 8 bytes of the file
// named by DELAYQ_FAKE_CLOCK_FILE, which the test moves forward between steps; every other clock
// is the kernel's. Without the variable or the file, the real clock.
//
// Why not libfaketime: Debian's redis-server is linked with the system's libjemalloc, whose
// first malloc (from a library constructor, before libfaketime's own) calls clock_gettime;
// libfaketime 0.9.10 then initialises itself, a dlsym of a symbol glibc 2.36 lacks (__ftime)
// allocates its error message, jemalloc is re-entered mid-initialisation, and redis-server hangs
// before main (libfaketime prints "Unexpected recursive calls to clock_gettime()"). This file
// allocates nothing and resolves nothing: the real clocks are the system call.
//
// Built without sanitizers (the server is not instrumented) and linked with nothing.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>

namespace {

constexpr std::int64_t kMicrosPerSecond = 1'000'000;

// mapped_micros points here until the file was looked up.
constexpr std::int64_t kNotLookedUp = 0;

// nullptr: no fake clock; else the mapped microseconds.
std::atomic<const std::int64_t*> mapped_micros{&kNotLookedUp};

// Maps the file on first use. Two threads may race here; the loser unmaps its copy.
const std::int64_t* fake_micros() {
    const std::int64_t* p = mapped_micros.load(std::memory_order_acquire);
    if (p != &kNotLookedUp) return p;
    const std::int64_t* found = nullptr;
    if (const char* path = std::getenv("DELAYQ_FAKE_CLOCK_FILE")) {
        const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            void* m = ::mmap(nullptr, sizeof(std::int64_t), PROT_READ, MAP_SHARED, fd, 0);
            ::close(fd);
            if (m != MAP_FAILED) found = static_cast<const std::int64_t*>(m);
        }
    }
    const std::int64_t* expected = &kNotLookedUp;
    if (!mapped_micros.compare_exchange_strong(expected, found, std::memory_order_acq_rel)) {
        if (found != nullptr) ::munmap(const_cast<std::int64_t*>(found), sizeof(std::int64_t));
        return expected;  // the winner's
    }
    return found;
}

bool now_micros(std::int64_t& out) {
    const std::int64_t* p = fake_micros();
    if (p == nullptr) return false;
    out = __atomic_load_n(p, __ATOMIC_SEQ_CST);
    return true;
}

long real_clock(clockid_t id, timespec* ts) { return ::syscall(SYS_clock_gettime, id, ts); }

}  // namespace

extern "C" {

int clock_gettime(clockid_t id, timespec* ts) noexcept {
    std::int64_t us = 0;
    if ((id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE) && now_micros(us)) {
        ts->tv_sec = static_cast<time_t>(us / kMicrosPerSecond);
        ts->tv_nsec = static_cast<long>((us % kMicrosPerSecond) * 1000);
        return 0;
    }
    return static_cast<int>(real_clock(id, ts));
}

int gettimeofday(timeval* tv, void* /*tz*/) noexcept {
    std::int64_t us = 0;
    if (!now_micros(us)) {
        timespec ts{};
        real_clock(CLOCK_REALTIME, &ts);
        us = static_cast<std::int64_t>(ts.tv_sec) * kMicrosPerSecond + ts.tv_nsec / 1000;
    }
    // glibc declares tv non-null.
    tv->tv_sec = static_cast<time_t>(us / kMicrosPerSecond);
    tv->tv_usec = static_cast<suseconds_t>(us % kMicrosPerSecond);
    return 0;
}

time_t time(time_t* out) noexcept {
    timespec ts{};
    clock_gettime(CLOCK_REALTIME, &ts);
    if (out != nullptr) *out = ts.tv_sec;
    return ts.tv_sec;
}

}  // extern "C"
