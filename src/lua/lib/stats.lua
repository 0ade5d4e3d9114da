-- A queue's stats: stats.lua answers them, and history_record.lua keeps them as the points of
-- the queue's history.
-- @include lib/keys.lua
-- @include lib/util.lua
-- @include lib/wake.lua
-- @include lib/lateness.lua

-- {now_ms, scheduled, ready, in_flight, dead, oldest_due_ms, next_future_due_ms, totals,
-- lateness}: stats.lua's reply (its header says what each is), at `now`.
local function queue_stats(now)
    local all = redis.call('ZCARD', K.pending)
    local ready = redis.call('ZCOUNT', K.pending, '-inf', str(now))
    local head = head_due() or -1
    local nxt = redis.call('ZRANGEBYSCORE', K.pending, '(' .. str(now), '+inf', 'WITHSCORES',
                           'LIMIT', 0, 1)
    local got = redis.call('HMGET', K.lateness, 'sum_ms', unpack(LATENESS_FIELDS))
    local lateness = {'sum_ms', got[1] or '0'}
    for b, field in ipairs(LATENESS_FIELDS) do
        lateness[2 * b + 1], lateness[2 * b + 2] = field, got[b + 1] or '0'
    end
    local next_due = -1
    if nxt[2] then next_due = tonumber(nxt[2]) end
    return {now, all - ready, ready, redis.call('ZCARD', K.inflight),
            redis.call('ZCARD', K.dead), head, next_due, redis.call('HGETALL', K.stats), lateness}
end
