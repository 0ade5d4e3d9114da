#!lua flags=no-writes
-- settings_get: reads the queue's settings (settings.lua without changes), read-only so that a
-- reader may run it (EVALSHA_RO: `delayq queue info`).
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: none
-- Errors: 'ERR delayq: bad script argument'.
-- Returns: what settings.lua returns: {layout ('' when the queue has none yet), then name, value
--   pairs of every setting (values as strings, defaults filled in)}
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/settings.lua

if not bind_keys(KEYS, 16) or #ARGV ~= 0 then return bad_argument() end

local settings, layout_err = read_settings()
if not settings then return layout_err end
local out = {settings.layout or ''}
for _, name in ipairs(SETTINGS) do
    out[#out + 1] = name
    out[#out + 1] = exact_str(settings[name])
end
return out
