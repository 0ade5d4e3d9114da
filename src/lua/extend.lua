#!lua flags=allow-oom
-- extend: renews the leases of messages whose handlers still run. A stale token changes nothing.
-- KEYS: the queue's keys, see lib.lua.
-- ARGV: 1 visibility_ms (> 0), then pairs of id, token.
-- Returns: one integer per pair: the new lease deadline (unix ms), or 0 when the lease is lost.
local visibility = uint(ARGV[1])
if visibility == nil or visibility < 1 or #ARGV < 3 or #ARGV % 2 ~= 1 then return bad_argument() end
local now = clock()
local deadline = now + visibility
local out = {}
for i = 2, #ARGV, 2 do
    local id, token = ARGV[i], tonumber(ARGV[i + 1])
    local lease = token and lease_of(token, id)
    if lease and redis.call('ZSCORE', K.inflight, lease) then
        redis.call('ZADD', K.inflight, 'XX', str(deadline), lease)
        out[#out + 1] = deadline
    else
        out[#out + 1] = 0
    end
end
return out
