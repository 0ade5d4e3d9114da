#pragma once

#include <cstddef>
#include <delayq/delayq.hpp>
#include <vector>

namespace delayq::cli {

// Up to `limit` messages of one state, in the order they leave it (paged: list takes <= kMaxBatch).
std::vector<MessageInfo> list_messages(QueueAdmin& admin, State state, std::size_t limit);

// A table for people, or one JSON object per line with --json. `now` is the Redis server's time.
void print_messages(const std::vector<MessageInfo>& messages, TimePoint now, bool json);

}  // namespace delayq::cli
