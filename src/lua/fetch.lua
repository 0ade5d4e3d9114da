#!lua flags=allow-oom
-- fetch: leases due messages to one consumer. Also returns expired leases to the pending set
-- (a failed attempt) or to the dead-letter set, and dead-letters due messages past their expiry.
-- allow-oom: it frees as much as it uses, and a full Redis must still be able to drain.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: 1 max_count (1..MAX_BATCH), 2 visibility_ms (1..MAX_TIME_MS)
-- Settings: paused (nothing is leased; lapsed leases are still swept), max_attempts (for records
--   without their own), the dead-letter retention bounds; read first, with the layout version.
-- Also counts every delivery's lateness (now - due) into the lateness histogram
--   (lib/lateness.lua): an HINCRBY per bucket the call's deliveries fell in, and one for the sum.
-- Returns: {now_us, next_ms, deliveries, dead_events}
--   now_us: the Redis time of the call in unix microseconds, so that a waiter can aim at a due
--     instant (due times stay whole milliseconds).
--   next_ms: when the consumer should call again (unix ms, Redis clock): the earliest of the
--     pending head and the inflight head (<= now when more is already due); -1 when neither
--     exists.
--   deliveries: runs of deliveries that share attempt and max_attempts (one run per fetch when
--     a batch shares them): attempt, max_attempts, count, due_ms, then count deliveries: lease
--     (the token as a sequence key, then the id; see lib/lease.lua), payload, the last error
--     ('' when none) when attempt > 1, and its own due_ms when the run's due_ms is -1. A run
--     whose deliveries share a due time states it once (two values per message, as a batch
--     sent with one delay has); otherwise each carries its own (three): a run per distinct
--     due time, as layout 1 sent, made six values per message of such a fetch.
--   dead_events: three per message dead-lettered by this call: id, reason, attempts
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/settings.lua
-- @include lib/fetch.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

local max_count, visibility = uint(ARGV[1]), uint(ARGV[2])
if #ARGV ~= 2 or max_count == nil or max_count < 1 or max_count > MAX_BATCH or visibility == nil
    or visibility < 1 then
    return bad_argument()
end
local now, now_us = clock()
-- Even an idle call checks the layout: a consumer of another version must hear of it before it
-- sleeps until a due time it may have misread. With the two heads, an idle call costs four reads.
local settings, layout_err = read_settings(true)
if not settings then return layout_err end
return fetch_due(max_count, visibility, settings, now, now_us)
