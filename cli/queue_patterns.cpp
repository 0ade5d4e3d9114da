#include "queue_patterns.hpp"

#include "errors.hpp"

namespace delayq::cli {

std::vector<QueuePattern> parse_queue_patterns(const std::vector<std::string>& texts) {
    std::vector<QueuePattern> out;
    for (const auto& text : texts) {
        const auto pattern = QueuePattern::parse(text);
        if (!pattern) {
            throw UsageError("bad queue pattern \"" + text +
                             "\": a queue name, a prefix ending in * (billing-*), or *");
        }
        out.push_back(*pattern);
    }
    if (out.empty()) throw UsageError("--queues names at least one queue pattern");
    return out;
}

}  // namespace delayq::cli
