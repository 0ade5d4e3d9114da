#!lua flags=allow-oom
-- release: hands leased messages that no handler started back at once (a consumer stopping), at
-- their original due time and without counting the attempt. A stale token changes nothing.
-- KEYS: the queue's keys, see lib.lua.
-- ARGV: pairs of id, token.
-- Returns: one integer per pair: 1 released, 0 lease lost.
if #ARGV == 0 or #ARGV % 2 ~= 0 then return bad_argument() end
local now = clock()
local head = head_due()
local out, earliest, released = {}, nil, 0
for i = 1, #ARGV, 2 do
    local id, token = ARGV[i], tonumber(ARGV[i + 1])
    local rec = token and redis.call('ZREM', K.inflight, lease_of(token, id)) == 1 and
                    redis.call('HGET', K.msg, id)
    if rec then
        local m = decode(rec)
        local member = member_of(id, m)
        m.token = 0
        m.attempts = m.attempts - 1
        redis.call('HSET', K.msg, id, encode(m))
        redis.call('ZADD', K.pending, str(m.due), member)
        if earliest == nil or m.due < earliest then earliest = m.due end
        released = released + 1
        out[#out + 1] = 1
    else
        out[#out + 1] = 0
    end
end
if earliest then
    redis.call('HINCRBY', K.stats, 'released', released)
    wake_if_earlier(head, earliest, now)
end
return out
