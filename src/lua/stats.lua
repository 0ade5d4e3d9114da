#!lua flags=no-writes
-- stats: counts per state, timing of the head of the queue, and the lifetime totals.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: none
-- Errors: 'ERR delayq: bad script argument'.
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
-- @include lib/stats.lua

if not bind_keys(KEYS, 16) or #ARGV ~= 0 then return bad_argument() end

local layout_err = check_layout()
if layout_err then return layout_err end
return queue_stats(clock())
