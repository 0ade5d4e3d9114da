#include "keys.hpp"

namespace delayq::detail {

QueueKeys make_keys(std::string_view queue) {
    QueueKeys keys;
    for (std::size_t i = 0; i < kKeySuffixes.size(); ++i) {
        keys[i].reserve(kKeyPrefix.size() + queue.size() + 3 + kKeySuffixes[i].size());
        keys[i].append(kKeyPrefix).append("{").append(queue).append("}:").append(kKeySuffixes[i]);
    }
    return keys;
}

}  // namespace delayq::detail
