#!lua
-- send: stores new messages and schedules them. Without allow-oom, so a Redis at maxmemory
-- refuses the whole call before it runs: a send fails whole, never half-written.
-- KEYS: the queue's keys, see lib.lua.
-- ARGV: six per message, for 1 to 1000 messages:
--   id               caller's id (idempotency key), or '' to generate one
--   at_ms            absolute due time, unix ms on the Redis clock, or '' to use delay_ms
--   delay_ms         delay after the Redis server's now, ms
--   max_attempts     deliveries allowed before dead-lettering, >= 1
--   expire_after_ms  0 for never; else dead-letter as 'expired' if not acked by now + this
--   payload          bytes
-- Returns: three per message: id, 1 when created or 0 when the id already existed (nothing
--   changed), and the due time (unix ms) of the message that now holds the id.
-- Errors: 'ERR delayq: bad script argument', 'ERR delayq: expiry before due time' or 'ERR
--   delayq: the due time would fall after the year 9999'; nothing is written then.
local now, now_us = clock()
local n = #ARGV / 6
if n < 1 or n > 1000 or n ~= math.floor(n) then return bad_argument() end

-- Validate everything before the first write. Per-message values go to flat arrays: a table per
-- message was a measurable part of the cost of a batch. The messages of a batch mostly share
-- their options, and equal Lua strings are one object, so each distinct set of option strings is
-- parsed once.
local dues, maxes, expires = {}, {}, {}
local has_caller_ids = false
local s_at, s_delay, s_max, s_expire, due, max, expire
for i = 1, n do
    local b = (i - 1) * 6
    local at, delay_s, max_s, expire_s = ARGV[b + 2], ARGV[b + 3], ARGV[b + 4], ARGV[b + 5]
    if at ~= s_at or delay_s ~= s_delay or max_s ~= s_max or expire_s ~= s_expire then
        s_at, s_delay, s_max, s_expire = at, delay_s, max_s, expire_s
        local delay, expire_after = uint(delay_s), uint(expire_s)
        max = uint(max_s)
        if delay == nil or max == nil or max < 1 or expire_after == nil then
            return bad_argument()
        end
        due = now + delay
        if at ~= '' then
            due = uint(at)
            if due == nil then return bad_argument() end
        end
        if due > MAX_MS then return due_too_late() end
        expire = 0
        if expire_after > 0 then
            expire = now + expire_after
            if expire <= due then
                return redis.error_reply('ERR delayq: expiry before due time')
            end
        end
    end
    dues[i], maxes[i], expires[i] = due, max, expire
    if ARGV[b + 1] ~= '' then has_caller_ids = true end
end

local head = head_due()
local keys = seq_keys(take_seq(n, now_us), n)
local ids, members = keys, keys
if has_caller_ids then
    ids, members = {}, {}
    for i = 1, n do
        local id, key = ARGV[(i - 1) * 6 + 1], keys[i]
        if id == '' then
            ids[i], members[i] = key, key
        else
            ids[i], members[i] = id, key .. id
        end
    end
end

-- One lookup and one write for the whole batch: a command per message was most of the cost.
local found = redis.call('HMGET', K.msg, unpack(ids))
local out, hset, zadd, earliest = {}, {}, {}, nil
local o, w = 0, 0  -- lengths of out, and of hset and zadd
-- id -> index of the message of this call that created it. Without caller ids, every id of the
-- call is a distinct new sequence key and nothing needs remembering.
local created_at = has_caller_ids and {} or nil
local due_s, due_of_s  -- the last due time formatted, and its value
for i = 1, n do
    local id, member, due = ids[i], members[i], dues[i]
    local created = 1
    if ARGV[(i - 1) * 6 + 1] == '' then
        -- A caller may have taken this id by hand; draw again until it is free.
        while found[i] or (created_at and created_at[id]) do
            id = seq_key(take_seq(1, now_us))
            member = id
            found[i] = redis.call('HEXISTS', K.msg, id) == 1
        end
    elseif found[i] then
        local m = decode(found[i])
        created, due = 0, due_of(member_of(id, m), m)
    elseif created_at[id] then
        created, due = 0, dues[created_at[id]]
    end
    if created == 1 then
        if created_at then created_at[id] = i end
        local stored = member
        if stored == id then stored = '' end
        if due ~= due_of_s then due_s, due_of_s = str(due), due end
        hset[w + 1] = id
        hset[w + 2] = new_record(maxes[i], expires[i], stored, ARGV[i * 6])
        zadd[w + 1] = due_s
        zadd[w + 2] = member
        w = w + 2
        if earliest == nil or due < earliest then earliest = due end
    end
    out[o + 1] = id
    out[o + 2] = created
    out[o + 3] = due
    o = o + 3
end

if #zadd > 0 then
    redis.call('HSET', K.msg, unpack(hset))
    redis.call('ZADD', K.pending, unpack(zadd))
    redis.call('HINCRBY', K.stats, 'sent', #zadd / 2)
    wake_if_earlier(head, earliest, now)
end
return out
