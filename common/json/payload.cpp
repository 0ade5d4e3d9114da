#include "json/payload.hpp"

#include <openssl/evp.h>

#include <cstdint>

#include "delayq/error.hpp"
#include "json/text.hpp"

namespace delayq::json {

bool is_valid_utf8(std::string_view bytes) {
    std::size_t i = 0;
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(bytes[k]); };
    while (i < bytes.size()) {
        const unsigned char c = byte(i);
        std::size_t n = 0;
        std::uint32_t cp = 0;
        if (c < 0x80) {
            ++i;
            continue;
        } else if ((c & 0xe0) == 0xc0) {
            n = 1, cp = c & 0x1f;
        } else if ((c & 0xf0) == 0xe0) {
            n = 2, cp = c & 0x0f;
        } else if ((c & 0xf8) == 0xf0) {
            n = 3, cp = c & 0x07;
        } else {
            return false;
        }
        if (i + n >= bytes.size()) return false;  // cut short
        for (std::size_t k = 1; k <= n; ++k) {
            if ((byte(i + k) & 0xc0) != 0x80) return false;
            cp = (cp << 6) | (byte(i + k) & 0x3f);
        }
        // Overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8.
        static constexpr std::uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
        if (cp < kMin[n] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff) return false;
        i += n + 1;
    }
    return true;
}

std::string base64_encode(std::string_view bytes) {
    std::string out(4 * ((bytes.size() + 2) / 3), '\0');
    const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(bytes.data()),
                                  static_cast<int>(bytes.size()));
    out.resize(static_cast<std::size_t>(n));
    return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
    if (text.size() % 4 != 0) return std::nullopt;
    std::string out(3 * (text.size() / 4), '\0');
    const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(text.data()),
                                  static_cast<int>(text.size()));
    if (n < 0) return std::nullopt;
    // EVP_DecodeBlock counts padding as zero bytes: drop one per '='.
    std::size_t len = static_cast<std::size_t>(n);
    if (!text.empty() && text.back() == '=') --len;
    if (text.size() >= 2 && text[text.size() - 2] == '=') --len;
    out.resize(len);
    // Canonical only: what encodes back the same, so that one payload has one spelling.
    if (base64_encode(out) != text) return std::nullopt;
    return out;
}

void put_payload(Json& out, const std::string& payload) {
    if (is_valid_utf8(payload)) {
        out["payload"] = payload;
    } else {
        out["payload_base64"] = base64_encode(payload);
    }
}

void append_payload(std::string& out, std::string_view payload) {
    if (is_valid_utf8(payload)) {
        out.append(R"(,"payload":)");
        append_json_string(out, payload);
    } else {
        out.append(R"(,"payload_base64":")");
        out.append(base64_encode(payload));
        out.push_back('"');
    }
}

std::string payload_field(const Json& value, const std::string& key) {
    if (!value.is_string()) throw InvalidArgument(key + " must be a string");
    if (key == "payload") return value.get<std::string>();
    auto bytes = base64_decode(value.get<std::string>());
    if (!bytes) throw InvalidArgument("payload_base64 is not base64 (RFC 4648, padded, canonical)");
    return std::move(*bytes);
}

}  // namespace delayq::json
