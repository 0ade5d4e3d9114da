#!lua flags=no-writes
-- push_get: a queue's push target as every role may read it: never the header values or the
-- secrets, which are not in KEYS.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: none
-- Returns: {} when the queue has no target; else {url, method, content type, timeout_ms,
--   in_flight_max, rate, header names (array), secrets (how many), updated_ms, last_at_ms (-1
--   for none), last_status, last_error}.
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/layout.lua
-- @include lib/push.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

if #ARGV ~= 0 then return bad_argument() end
local layout_err = check_layout()
if layout_err then return layout_err end
return push_public() or EMPTY
