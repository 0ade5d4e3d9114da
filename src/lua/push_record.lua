#!lua
-- push_record: records the last answer a pusher got for the queue, for push_get. A pusher calls
-- it now and then, not per request.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: 1 status (the HTTP status, 0 for none), 2 error ('' for a 2xx; cut to MAX_ERROR_BYTES)
-- Returns: 1, or 0 when the queue has no target (nothing written).
-- Errors: 'ERR delayq: bad script argument'.
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/layout.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

local status, err = uint(ARGV[1]), ARGV[2]
if #ARGV ~= 2 or status == nil or status > 999 then return bad_argument() end
local layout_err = check_layout(true)
if layout_err then return layout_err end
if redis.call('EXISTS', K.push) == 0 then return 0 end
redis.call('HSET', K.push, 'last_at', str(clock()), 'last_status', str(status), 'last_error',
    err:sub(1, MAX_ERROR_BYTES))
return 1
