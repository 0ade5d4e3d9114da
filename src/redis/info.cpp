#include "redis/info.hpp"

namespace delayq::detail {

bool evicting_policy(std::string_view policy) { return !policy.empty() && policy != "noeviction"; }

std::string info_field(std::string_view info, std::string_view field) {
    std::size_t start = 0;
    while (start < info.size()) {
        std::size_t end = info.find_first_of("\r\n", start);
        if (end == std::string_view::npos) end = info.size();
        std::string_view line = info.substr(start, end - start);
        if (line.size() > field.size() && line.starts_with(field) && line[field.size()] == ':') {
            return std::string(line.substr(field.size() + 1));
        }
        start = end + 1;
    }
    return {};
}

}  // namespace delayq::detail
