-- Dead letters: burying messages, deleting them, and the retention trim.
-- @include lib/keys.lua
-- @include lib/util.lua
-- @include lib/seq.lua
-- @include lib/record.lua

-- Dead letters removed by retention per call, to bound the work of one call.
local TRIM = 100

-- Moves a message to the dead-letter set, keeping its record for inspection and requeue.
local function bury(id, m, member, now, reason, err_text, events)
    m.token = 0
    m.reason = reason
    redis.call('HSET', K.msg, id, encode(m))
    redis.call('ZADD', K.dead, str(now), member)
    if err_text then redis.call('HSET', K.err, id, err_text) end
    redis.call('HINCRBY', K.stats, 'dead_lettered', '1')
    if reason == 'expired' then redis.call('HINCRBY', K.stats, 'expired', '1') end
    if events then
        events[#events + 1] = id
        events[#events + 1] = reason
        events[#events + 1] = m.attempts
    end
end

-- Deletes members of a zset and their records; an orphan member (see record_of) goes alone, so
-- that a record reusing its id survives. Returns how many real messages were deleted.
local function delete_members(zset, members)
    if #members == 0 then return 0 end
    redis.call('ZREM', zset, unpack(members))
    local deleted, orphans = 0, 0
    for _, member in ipairs(members) do
        local id = id_of(member)
        if record_of(member, redis.call('HGET', K.msg, id)) then
            redis.call('HDEL', K.msg, id)
            redis.call('HDEL', K.err, id)
            deleted = deleted + 1
        else
            orphans = orphans + 1
        end
    end
    if orphans > 0 then redis.call('HINCRBY', K.stats, 'orphans_removed', orphans) end
    return deleted
end

-- Retention of the dead-letter set: by age, then by count; 0 disables a bound. Bounded per call;
-- every removal is counted in stats.dead_trimmed.
-- `size` is the set's size when the caller has read it already.
local function trim_dead(now, max_count, max_age_ms, size)
    size = size or redis.call('ZCARD', K.dead)
    if size == 0 then return end
    local victims = {}
    if max_age_ms > 0 then
        local cutoff = str(now - max_age_ms)
        victims = redis.call('ZRANGEBYSCORE', K.dead, '-inf', cutoff, 'LIMIT', '0', TRIM)
    end
    if #victims == 0 and max_count > 0 then
        local excess = size - max_count
        if excess > 0 then
            victims = redis.call('ZRANGE', K.dead, '0', math.min(excess, TRIM) - 1)
        end
    end
    local trimmed = delete_members(K.dead, victims)
    if trimmed > 0 then redis.call('HINCRBY', K.stats, 'dead_trimmed', trimmed) end
end

-- The members of the dead letters with these ids (ids not dead are skipped, an id named twice
-- counts once), or with no ids the oldest `limit` of them.
local function dead_members(ids, limit)
    if #ids == 0 then return redis.call('ZRANGE', K.dead, '0', limit - 1) end
    local members, seen = {}, {}
    for _, id in ipairs(ids) do
        local rec = redis.call('HGET', K.msg, id)
        if rec and not seen[id] then
            seen[id] = true
            local member = member_of(id, decode(rec))
            if redis.call('ZSCORE', K.dead, member) then members[#members + 1] = member end
        end
    end
    return members
end
