#pragma once

namespace delayq::detail {

// A Linux eventfd: a thread that waits on a socket also waits on fd(), so that another thread
// can wake it (notify) without closing the socket or a timeout to poll a flag.
class EventFd {
  public:
    // Throws ConnectionError when the kernel refuses one (out of file descriptors).
    EventFd();
    ~EventFd();
    EventFd(const EventFd&) = delete;
    EventFd& operator=(const EventFd&) = delete;

    int fd() const { return fd_; }
    // Makes fd() readable until the next drain(). Never throws.
    void notify() noexcept;
    // Makes fd() unreadable again, without blocking.
    void drain() noexcept;

  private:
    int fd_;
};

}  // namespace delayq::detail
