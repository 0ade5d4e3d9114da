#pragma once

#include <delayq/delivery.hpp>
#include <delayq/queue_admin.hpp>
#include <delayq/types.hpp>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace delayq::cli {

using Json = nlohmann::json;

bool is_valid_utf8(std::string_view bytes);
std::string base64_encode(std::string_view bytes);
// nullopt when the text is not valid (padded, standard alphabet) base64.
std::optional<std::string> base64_decode(std::string_view text);

// Sets "payload" when the bytes are valid UTF-8 (JSON strings cannot carry anything else),
// else "payload_base64".
void put_payload(Json& out, const std::string& payload);

// One line of JSON. Strings that are not valid UTF-8 (a command's stderr kept as the last
// error, say) are repaired rather than refused: the output must never fail.
std::string to_line(const Json& value);

Json message_json(const MessageInfo& info);
// What `consume` prints of a delivery (docs/cli.md, Delivery).
Json delivery_json(const Delivery& delivery);
Json stats_json(std::string_view queue, const QueueStats& stats);
Json settings_json(const QueueSettings& settings);

}  // namespace delayq::cli
