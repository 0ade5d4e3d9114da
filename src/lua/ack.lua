#!lua flags=allow-oom
-- ack: deletes handled messages and every trace of them. A stale token (the lease was lost and
-- the message moved on) changes nothing: its lease is no longer in the inflight set, so the
-- ZREM that proves the lease is the whole check. allow-oom: it only frees memory.
-- KEYS: the queue's keys, see lib.lua.
-- ARGV: pairs of id, token (decimal) for each message; 1 to 1000 pairs.
-- Returns: one integer per pair: 1 acked, 0 lease lost or message gone.
if #ARGV == 0 or #ARGV % 2 ~= 0 or #ARGV > 2000 then return bad_argument() end
-- One ZMSCORE, ZREM and two HDELs for the whole batch: a command per message was most of the
-- cost of a group-committed ack.
local n = #ARGV / 2
local leases = {}
for i = 1, n do
    local token = tonumber(ARGV[2 * i])
    -- A token that is no number matches no lease; '' keeps the positions of ZMSCORE's answer.
    leases[i] = token and lease_of(token, ARGV[2 * i - 1]) or ''
end
local held = redis.call('ZMSCORE', K.inflight, unpack(leases))
local out, gone, ids, seen = {}, {}, {}, {}
for i = 1, n do
    out[i] = 0
    if held[i] and not seen[leases[i]] then
        seen[leases[i]] = true
        out[i] = 1
        gone[#gone + 1] = leases[i]
        ids[#ids + 1] = ARGV[2 * i - 1]
    end
end
if #gone > 0 then
    redis.call('ZREM', K.inflight, unpack(gone))
    redis.call('HDEL', K.msg, unpack(ids))
    redis.call('HDEL', K.err, unpack(ids))
    redis.call('HINCRBY', K.stats, 'acked', #gone)
end
return out
