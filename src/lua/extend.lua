#!lua flags=allow-oom
-- extend: renews the leases of messages whose handlers still run. A stale token changes nothing.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: 1 visibility_ms (1..MAX_TIME_MS), then the lease of each message (1 to MAX_BATCH, see
--   ack.lua: any text, lost unless held).
-- Returns: one integer per lease: the new lease deadline (unix ms), or 0 when the lease is lost.
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/layout.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

local visibility = uint(ARGV[1])
local n = #ARGV - 1
if visibility == nil or visibility < 1 or n < 1 or n > MAX_BATCH then
    return bad_argument()
end
local layout_err = check_layout(true)
if layout_err then return layout_err end
local now = clock()
local deadline = now + visibility
local leases = {unpack(ARGV, 2)}
local held = redis.call('ZMSCORE', K.inflight, unpack(leases))
local out, zadd, k = {}, {}, 0
local deadline_s = str(deadline)
for i = 1, n do
    out[i] = 0
    if held[i] then
        out[i] = deadline
        zadd[k + 1] = deadline_s
        zadd[k + 2] = leases[i]
        k = k + 2
    end
end
if k > 0 then redis.call('ZADD', K.inflight, 'XX', unpack(zadd)) end
return out
