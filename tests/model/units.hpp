#pragma once

#include <cstdint>
#include <delayq/limits.hpp>
#include <delayq/types.hpp>

// Milliseconds, the unit of every time the model keeps (as the scripts keep them), and the
// range the scripts take.
namespace delayq::model {

inline std::int64_t ms_of(Duration d) { return d.count(); }
inline std::int64_t ms_of(TimePoint t) { return t.time_since_epoch().count(); }
inline TimePoint at_ms(std::int64_t ms) { return TimePoint(Duration(ms)); }

// Within the scripts' range of times: 0 to the end of the year 9999.
inline bool valid_delay(Duration d) { return d.count() >= 0 && d.count() <= kMaxTimeMs; }
inline bool valid_time(TimePoint t) { return ms_of(t) >= 0 && ms_of(t) <= kMaxTimeMs; }

}  // namespace delayq::model
