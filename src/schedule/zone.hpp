#pragma once

#include <date/tz.h>

#include <memory>
#include <string>

namespace Posix {  // NOLINT(readability-identifier-naming): date's name
class time_zone;
}

namespace delayq::detail {

// A time zone of the system's tzdata. date 3.0.1 (Debian 12) reads only the transitions a
// tzfile lists, which end in 2037 in Debian's files (and decades earlier in "slim" ones), and
// keeps the last offset for ever after: New York would stay on EST every summer from 2038.
// After the last listed transition this applies the POSIX TZ rule that ends the file instead, as
// the C library does. Immutable and thread-safe.
class Zone {
  public:
    // Throws InvalidArgument `tz: unknown time zone "Mars/Base"`.
    static Zone locate(const std::string& name);

    date::sys_info info(date::sys_seconds t) const;
    date::local_info info(date::local_seconds t) const;

  private:
    Zone() = default;
    const date::time_zone* zone_ = nullptr;
    // The file's rule, and where it takes over; none when the file has no rule we can read.
    std::shared_ptr<const Posix::time_zone> rule_;
    date::sys_seconds rule_from_{};
    date::local_seconds rule_local_from_{};
};

}  // namespace delayq::detail
