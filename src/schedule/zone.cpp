#include "schedule/zone.hpp"

// ptz.h's time_zone::name() says `using namespace date; using namespace std::chrono;` and then
// hh_mm_ss, which C++20's <chrono> makes ambiguous (date 3.0.1 predates it). A name in Posix
// itself is found before either.
namespace Posix {  // NOLINT(readability-identifier-naming): date's name
template <class Duration>
using hh_mm_ss = date::hh_mm_ss<Duration>;
}  // namespace Posix
#include <date/ptz.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>

#include "delayq/error.hpp"

namespace delayq::detail {
namespace {

// Where Debian's libdate-tz (USE_OS_TZDB) reads the zones too.
constexpr std::string_view kZoneDir = "/usr/share/zoneinfo/";

// The POSIX TZ string of a TZif file of version 2 or later: its last line,
// "...\n<+1030>-10:30<+11>-11,M10.1.0,M4.1.0\n".
std::optional<std::string> footer_rule(const std::string& name) {
    std::ifstream in(std::string(kZoneDir) + name, std::ios::binary);
    const std::string data{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (!data.starts_with("TZif") || data.size() < 2 || data.back() != '\n') return std::nullopt;
    const auto begin = data.rfind('\n', data.size() - 2);
    if (begin == std::string::npos || begin + 2 >= data.size()) return std::nullopt;
    return data.substr(begin + 1, data.size() - begin - 2);
}

}  // namespace

Zone Zone::locate(const std::string& name) {
    // Schedulers make a Recurrence per claim: read and parse each zone's file once.
    static std::mutex mutex;
    static std::map<std::string, Zone, std::less<>> known;
    const std::lock_guard lock(mutex);
    if (const auto it = known.find(name); it != known.end()) return it->second;
    Zone zone;
    try {
        zone.zone_ = date::locate_zone(name);
    } catch (const std::exception&) {
        // Without tzdata every name is unknown, UTC too: say so rather than blame the name.
        const bool no_tzdata = !std::filesystem::is_directory(std::string(kZoneDir));
        throw InvalidArgument("tz: unknown time zone \"" + name + "\"" +
                              (no_tzdata
                                   ? " (" + std::string(kZoneDir) + " is missing: install tzdata)"
                                   : std::string()));
    }
    if (const auto rule = footer_rule(zone.zone_->name())) {
        try {
            zone.rule_ = std::make_shared<const Posix::time_zone>(*rule);
        } catch (const std::exception&) {
            // A rule ptz refuses (Greenland's, America/Nuuk's "M3.5.0/-1": a change at -1:00)
            // leaves the listed transitions only, as date alone does.
        }
    }
    // The last listed transition begins the interval that date extends for ever. Offsets are
    // within a day of UTC and transitions months apart: a day past it in local time, only the
    // rule can tell.
    const date::sys_info last = zone.zone_->get_info(date::sys_days{date::year{9999} / 1 / 1});
    zone.rule_from_ = last.begin;
    zone.rule_local_from_ =
        date::local_seconds{last.begin.time_since_epoch() + last.offset + date::days{1}};
    known.emplace(name, zone);
    return zone;
}

date::sys_info Zone::info(date::sys_seconds t) const {
    if (!rule_ || t < rule_from_) return zone_->get_info(t);
    date::sys_info info = rule_->get_info(t);
    info.begin = std::max(info.begin, rule_from_);
    return info;
}

date::local_info Zone::info(date::local_seconds t) const {
    if (!rule_ || t < rule_local_from_) return zone_->get_info(t);
    return rule_->get_info(t);
}

}  // namespace delayq::detail
