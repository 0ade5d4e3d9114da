#!lua flags=no-writes
-- stats: counts per state, timing of the head of the queue, and the lifetime totals.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: none
-- Returns: {now_ms, scheduled, ready, in_flight, dead, oldest_due_ms, next_future_due_ms, totals,
--   lateness}
--   scheduled counts pending messages not yet due; ready those due and waiting for a consumer.
--   oldest_due_ms and next_future_due_ms are -1 when there is no such message.
--   totals: flat name, value pairs (sent, delivered, acked, retried, dead_lettered, expired, ...)
--   lateness: 'sum_ms', the sum, then each bucket's upper bound (ms, or '+Inf') and its count
--     (not cumulative), every bucket in ascending order, 0 for those never hit (lib/lateness.lua)
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/wake.lua
-- @include lib/layout.lua
-- @include lib/lateness.lua

bind_keys(KEYS)

local layout_err = check_layout()
if layout_err then return layout_err end
local now = clock()
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
return {now, all - ready, ready, redis.call('ZCARD', K.inflight), redis.call('ZCARD', K.dead),
        head, next_due, redis.call('HGETALL', K.stats), lateness}
