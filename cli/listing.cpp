#include "listing.hpp"

#include <algorithm>
#include <cstdio>
#include <delayq/limits.hpp>

#include "json/message.hpp"
#include "json_output.hpp"
#include "table.hpp"
#include "time_text.hpp"

namespace delayq::cli {
namespace {

constexpr std::size_t kPage = kMaxBatch;

// What matters about a message in its state: when it is due, when its lease ends, why it died.
std::string when(const MessageInfo& m, TimePoint now) {
    switch (m.state) {
        case State::kScheduled:
        case State::kReady:
            return "due " + relative_time(m.due, now);
        case State::kInFlight:
            return m.lease_deadline ? "lease ends " + relative_time(*m.lease_deadline, now) : "";
        case State::kDead:
            return m.dead_at ? "dead since " + relative_time(*m.dead_at, now) : "";
    }
    return "";
}

Colour state_colour(State state) {
    switch (state) {
        case State::kScheduled:
            return Colour::kCyan;
        case State::kReady:
            return Colour::kGreen;
        case State::kInFlight:
            return Colour::kYellow;
        case State::kDead:
            return Colour::kRed;
    }
    return Colour::kNone;
}

}  // namespace

std::vector<MessageInfo> list_messages(QueueAdmin& admin, State state, std::size_t limit) {
    std::vector<MessageInfo> out;
    PageRequest request;
    while (out.size() < limit) {
        request.limit = std::min(kPage, limit - out.size());
        MessagePage page = admin.list(state, request);
        for (auto& m : page.messages) out.push_back(std::move(m));
        if (page.next_cursor.empty()) break;
        request.cursor = std::move(page.next_cursor);
    }
    if (out.size() > limit) out.resize(limit);
    return out;
}

void print_messages(const std::vector<MessageInfo>& messages, TimePoint now, bool json) {
    if (json) {
        for (const auto& m : messages)
            std::printf("%s\n", to_line(json::message_info_json(m)).c_str());
        return;
    }
    if (messages.empty()) {
        std::printf("no messages\n");
        return;
    }
    Table table({"ID", "STATE", "WHEN", "ATTEMPTS", "PAYLOAD", "LAST ERROR"});
    for (const auto& m : messages) {
        std::string error = m.dead_reason;
        if (!m.last_error.empty()) error += (error.empty() ? "" : ": ") + m.last_error;
        table.add({m.id, std::string(to_string(m.state)), when(m, now),
                   std::to_string(m.attempts) + "/" + std::to_string(m.max_attempts),
                   preview(m.payload), preview(error, 80)},
                  {Colour::kNone, state_colour(m.state)});
    }
    std::printf("%s", table.render(colour_stdout()).c_str());
}

}  // namespace delayq::cli
