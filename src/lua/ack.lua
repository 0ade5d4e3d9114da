#!lua flags=allow-oom
-- ack: deletes handled messages and every trace of them. A stale token (the lease was lost and
-- the message moved on) changes nothing: its lease is no longer in the inflight set, so the
-- ZREM that proves the lease is the whole check. allow-oom: it only frees memory.
-- KEYS: the queue's keys, see lib.lua.
-- ARGV: pairs of id, token (decimal) for each message.
-- Returns: one integer per pair: 1 acked, 0 lease lost or message gone.
if #ARGV == 0 or #ARGV % 2 ~= 0 then return bad_argument() end
local out, acked = {}, 0
for i = 1, #ARGV, 2 do
    local id, token = ARGV[i], tonumber(ARGV[i + 1])
    if token and redis.call('ZREM', K.inflight, lease_of(token, id)) == 1 then
        redis.call('HDEL', K.msg, id)
        redis.call('HDEL', K.err, id)
        acked = acked + 1
        out[#out + 1] = 1
    else
        out[#out + 1] = 0
    end
end
if acked > 0 then redis.call('HINCRBY', K.stats, 'acked', acked) end
return out
