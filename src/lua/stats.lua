#!lua flags=no-writes
-- stats: counts per state, timing of the head of the queue, and the lifetime totals.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: none
-- Returns: {now_ms, scheduled, ready, in_flight, dead, oldest_due_ms, next_future_due_ms, totals}
--   scheduled counts pending messages not yet due; ready those due and waiting for a consumer.
--   oldest_due_ms and next_future_due_ms are -1 when there is no such message.
--   totals: flat name, value pairs (sent, delivered, acked, retried, dead_lettered, expired, ...)
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/wake.lua
-- @include lib/layout.lua

local layout_err = check_layout()
if layout_err then return layout_err end
local now = clock()
local all = redis.call('ZCARD', K.pending)
local ready = redis.call('ZCOUNT', K.pending, '-inf', str(now))
local head = head_due() or -1
local nxt = redis.call('ZRANGEBYSCORE', K.pending, '(' .. str(now), '+inf', 'WITHSCORES',
                       'LIMIT', 0, 1)
local next_due = -1
if nxt[2] then next_due = tonumber(nxt[2]) end
return {now, all - ready, ready, redis.call('ZCARD', K.inflight), redis.call('ZCARD', K.dead),
        head, next_due, redis.call('HGETALL', K.stats)}
