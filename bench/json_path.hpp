#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace delayq::bench {

// The value at a dotted path ("lateness_ms.p99") in a result line; nullptr when absent. Shared by
// delayq-bench's closing table and the smoke-test checker, which read the same lines.
// Json is nlohmann::json or nlohmann::ordered_json.
template <typename Json>
const Json* json_path(const Json& j, const std::string& path) {
    const Json* cur = &j;
    std::size_t pos = 0;
    while (pos <= path.size()) {
        auto dot = path.find('.', pos);
        if (dot == std::string::npos) dot = path.size();
        const std::string key = path.substr(pos, dot - pos);
        if (!cur->is_object() || !cur->contains(key)) return nullptr;
        cur = &(*cur)[key];
        pos = dot + 1;
    }
    return cur;
}

}  // namespace delayq::bench
