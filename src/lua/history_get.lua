#!lua flags=no-writes
-- history_get: the points of the queue's history (history_record.lua) from a time on, oldest
-- first: at most HISTORY_KEEP_MS / HISTORY_PERIOD_MS + 1 of them, and at most `limit`.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: 1 since_ms (points of periods at or after it), 2 limit (1 to MAX_BATCH points: 1 gives
--       the oldest alone, which is what a rate over the hour needs)
-- Returns: {now_ms, point...}: each point is stats.lua's reply as it was then.
-- Errors: 'ERR delayq: bad script argument'.
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/layout.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

local since, limit = uint(ARGV[1]), uint(ARGV[2])
if #ARGV ~= 2 or since == nil or limit == nil or limit < 1 or limit > MAX_BATCH then
    return bad_argument()
end
local layout_err = check_layout()
if layout_err then return layout_err end
local now = clock()
local out = {now}
for _, packed in ipairs(redis.call('ZRANGEBYSCORE', K.history, str(since), '+inf', 'LIMIT', 0, limit)) do
    out[#out + 1] = cmsgpack.unpack(packed)
end
return out
