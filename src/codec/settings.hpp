#pragma once

#include "delayq/queue_admin.hpp"
#include "redis/reply.hpp"
#include "redis/script.hpp"

// The calls and replies of settings.lua and delete.lua (contracts in their headers).
namespace delayq::detail::settings_codec {

// The settings to change as the script's name, value pairs; none to only read. Validates the
// update first (InvalidArgument).
ScriptArgs encode_update(const SettingsUpdate& update);
ScriptArgs encode_paused(bool paused);
QueueSettings decode(const Reply& reply);

ScriptArgs encode_delete(bool force);
DeleteResult decode_delete(const Reply& reply);

}  // namespace delayq::detail::settings_codec
