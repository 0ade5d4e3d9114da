#!lua
-- history_record: a point of the queue's history, its stats as stats.lua answers them, for the
-- current period (the Redis clock's now rounded down to HISTORY_PERIOD_MS), unless the period
-- has one: any number of servers sample a queue, and whichever comes first writes its point,
-- the others nothing. Points of periods older than HISTORY_KEEP_MS go.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: none
-- Returns: {written (1 or 0), period_ms}
-- Errors: 'ERR delayq: bad script argument'.
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/layout.lua
-- @include lib/stats.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

if #ARGV ~= 0 then return bad_argument() end
local layout_err = check_layout(true)
if layout_err then return layout_err end
local now = clock()
local period = now - now % HISTORY_PERIOD_MS
if redis.call('ZCOUNT', K.history, period, period) > 0 then return {0, period} end
-- The point keeps its own instant (now), which rates are computed from; the score, the
-- period's, is what makes a second point of the period visible.
redis.call('ZADD', K.history, period, cmsgpack.pack(queue_stats(now)))
-- By rank, from the count of the old ones: the writer role's commands have ZREMRANGEBYRANK.
local old = redis.call('ZCOUNT', K.history, '-inf', '(' .. str(period - HISTORY_KEEP_MS))
if old > 0 then redis.call('ZREMRANGEBYRANK', K.history, 0, old - 1) end
return {1, period}
