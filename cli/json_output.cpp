#include "json_output.hpp"

#include <array>
#include <cstdint>

#include "time_text.hpp"

namespace delayq::cli {
namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

Json optional_ms(const std::optional<TimePoint>& t) {
    return t ? Json(unix_ms(*t)) : Json(nullptr);
}

}  // namespace

bool is_valid_utf8(std::string_view bytes) {
    std::size_t i = 0;
    while (i < bytes.size()) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        std::size_t extra = 0;
        std::uint32_t cp = 0;
        if (c < 0x80) {
            ++i;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            extra = 1;
            cp = c & 0x1fU;
        } else if (c >= 0xe0 && c <= 0xef) {
            extra = 2;
            cp = c & 0x0fU;
        } else if (c >= 0xf0 && c <= 0xf4) {
            extra = 3;
            cp = c & 0x07U;
        } else {
            return false;
        }
        if (i + extra >= bytes.size()) return false;  // truncated sequence
        for (std::size_t k = 1; k <= extra; ++k) {
            const auto cc = static_cast<unsigned char>(bytes[i + k]);
            if ((cc & 0xc0U) != 0x80U) return false;
            cp = (cp << 6U) | (cc & 0x3fU);
        }
        // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8.
        if ((extra == 2 && cp < 0x800) || (extra == 3 && (cp < 0x10000 || cp > 0x10ffff)) ||
            (cp >= 0xd800 && cp <= 0xdfff)) {
            return false;
        }
        i += extra + 1;
    }
    return true;
}

std::string base64_encode(std::string_view bytes) {
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    std::size_t i = 0;
    for (; i + 2 < bytes.size(); i += 3) {
        const std::uint32_t n = (std::uint32_t{static_cast<unsigned char>(bytes[i])} << 16U) |
                                (std::uint32_t{static_cast<unsigned char>(bytes[i + 1])} << 8U) |
                                std::uint32_t{static_cast<unsigned char>(bytes[i + 2])};
        out += kAlphabet[(n >> 18U) & 63U];
        out += kAlphabet[(n >> 12U) & 63U];
        out += kAlphabet[(n >> 6U) & 63U];
        out += kAlphabet[n & 63U];
    }
    if (i < bytes.size()) {
        std::uint32_t n = std::uint32_t{static_cast<unsigned char>(bytes[i])} << 16U;
        const bool two = i + 1 < bytes.size();
        if (two) n |= std::uint32_t{static_cast<unsigned char>(bytes[i + 1])} << 8U;
        out += kAlphabet[(n >> 18U) & 63U];
        out += kAlphabet[(n >> 12U) & 63U];
        out += two ? kAlphabet[(n >> 6U) & 63U] : '=';
        out += '=';
    }
    return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
    if (text.size() % 4 != 0) return std::nullopt;
    std::array<int, 256> value{};
    value.fill(-1);
    for (std::size_t k = 0; k < kAlphabet.size(); ++k) {
        value[static_cast<unsigned char>(kAlphabet[k])] = static_cast<int>(k);
    }
    std::string out;
    out.reserve(text.size() / 4 * 3);
    for (std::size_t i = 0; i < text.size(); i += 4) {
        const bool last = i + 4 == text.size();
        std::uint32_t n = 0;
        int pad = 0;
        for (std::size_t k = 0; k < 4; ++k) {
            const char c = text[i + k];
            if (c == '=' && last && k >= 2) {
                ++pad;
                n <<= 6U;
                continue;
            }
            const int v = value[static_cast<unsigned char>(c)];
            if (v < 0 || pad > 0) return std::nullopt;  // a character after padding
            n = (n << 6U) | static_cast<std::uint32_t>(v);
        }
        out += static_cast<char>((n >> 16U) & 0xffU);
        if (pad < 2) out += static_cast<char>((n >> 8U) & 0xffU);
        if (pad < 1) out += static_cast<char>(n & 0xffU);
    }
    return out;
}

void put_payload(Json& out, const std::string& payload) {
    if (is_valid_utf8(payload)) {
        out["payload"] = payload;
    } else {
        out["payload_base64"] = base64_encode(payload);
    }
}

std::string to_line(const Json& value) {
    return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

Json message_json(const MessageInfo& info) {
    Json j;
    j["id"] = info.id;
    j["state"] = std::string(to_string(info.state));
    j["due_ms"] = unix_ms(info.due);
    j["lease_deadline_ms"] = optional_ms(info.lease_deadline);
    j["dead_at_ms"] = optional_ms(info.dead_at);
    j["expire_at_ms"] = optional_ms(info.expire_at);
    j["attempts"] = info.attempts;
    j["max_attempts"] = info.max_attempts;
    if (!info.dead_reason.empty()) j["dead_reason"] = info.dead_reason;
    if (!info.last_error.empty()) j["last_error"] = info.last_error;
    put_payload(j, info.payload);
    return j;
}

Json delivery_json(const Delivery& d) {
    Json j;
    j["id"] = d.id();
    put_payload(j, d.payload());
    j["attempt"] = d.attempt();
    j["due_ms"] = unix_ms(d.due());
    j["delivered_ms"] = unix_ms(d.delivered_at());
    return j;
}

Json stats_json(std::string_view queue, const QueueStats& s) {
    const auto& t = s.totals;
    Json j;
    j["queue"] = std::string(queue);
    j["now_ms"] = unix_ms(s.now);
    j["scheduled"] = s.scheduled;
    j["ready"] = s.ready;
    j["in_flight"] = s.in_flight;
    j["dead"] = s.dead;
    j["total"] = s.scheduled + s.ready + s.in_flight + s.dead;
    j["next_due_ms"] = optional_ms(s.next_due);
    j["oldest_due_ms"] = optional_ms(s.oldest_due);
    j["oldest_overdue_ms"] = s.oldest_overdue_age.count();
    j["totals"] = {{"sent", t.sent},
                   {"delivered", t.delivered},
                   {"acked", t.acked},
                   {"retried", t.retried},
                   {"dead_lettered", t.dead_lettered},
                   {"expired", t.expired},
                   {"cancelled", t.cancelled},
                   {"released", t.released},
                   {"requeued", t.requeued},
                   {"purged", t.purged},
                   {"dead_trimmed", t.dead_trimmed},
                   {"orphans_removed", t.orphans_removed}};
    return j;
}

Json settings_json(const QueueSettings& s) {
    Json j;
    j["paused"] = s.paused;
    j["max_attempts"] = s.max_attempts;
    j["backoff"] = {{"initial_ms", s.backoff.initial.count()},
                    {"max_ms", s.backoff.max.count()},
                    {"multiplier", s.backoff.multiplier},
                    {"jitter", s.backoff.jitter}};
    j["dead_max_count"] = s.dead_max_count;
    j["dead_max_age_ms"] = s.dead_max_age.count();
    j["layout"] = s.layout;
    return j;
}

}  // namespace delayq::cli
