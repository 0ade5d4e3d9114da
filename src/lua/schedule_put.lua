#!lua
-- schedule_put: creates a recurring schedule, changes its spec, or resumes it, and sends its
-- first occurrence ahead (overlap allow) or notes it for a claim at its instant (skip). The
-- client computed the occurrences from a read of the schedule (schedule_get); `expected` makes
-- the write conditional on that read, so two clients changing one schedule at once cannot
-- interleave: the later one is told 'conflict' and reads again.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: 1 mode: 'add' | 'upsert' | 'resume'
--       2 name
--       3 expected: the spec hash the client read, '' when it read no schedule
--       4 id prefix: an occurrence's message id is this followed by its instant in ms
--       5..16 the spec: kind, expr, tz, payload, max, exp, start, stop, runs_max, overlap,
--             catch, hash (lib/schedule.lua)
--       17 anchor (ms): kept from the stored schedule when there is one
--       18 first: the first occurrence after the client's read of the clock (ms), -1 for none
--       19 then: the occurrence after it (ms), -1 for none
--       Times are decimal digits up to MAX_TIME_MS (start, stop, first and then may be '-1');
--       name as validate_schedule_name; prefix, expr, tz, expected and hash printable ASCII;
--       max at most MAX_ATTEMPTS, runs_max at most MAX_SCHEDULE_RUNS.
-- Returns: {status, next_due_ms} with status 'created' | 'updated' | 'unchanged' | 'exists' |
--   'resumed' | 'not_found' (resume of no schedule) | 'conflict' (nothing written);
--   next_due_ms as in schedule_get (-1 when none).
-- Errors: 'ERR delayq: bad script argument'; nothing is written then.
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/layout.lua
-- @include lib/schedule.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

local mode, name, expected, prefix = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if #ARGV ~= 19 or (mode ~= 'add' and mode ~= 'upsert' and mode ~= 'resume')
    or not is_schedule_name(name)
    or (expected ~= '' and not printable(expected, SCHEDULE_TEXT_MAX, true))
    or not is_id_prefix(prefix) then
    return bad_argument()
end
local spec = {}
for i, field in ipairs(SCHEDULE_SPEC) do spec[field] = ARGV[4 + i] end
for _, field in ipairs({'max', 'exp', 'runs_max'}) do
    spec[field] = uint(spec[field])
    if spec[field] == nil then return bad_argument() end
end
local anchor = uint(ARGV[17])
-- Times were tonumber's: "nan" or "1e308" became the schedule's next occurrence, and a message
-- due then was sent with a due time no record can hold.
local first, after_first = uint_or_none(ARGV[18]), uint_or_none(ARGV[19])
spec.start, spec.stop = uint_or_none(spec.start), uint_or_none(spec.stop)
if anchor == nil or first == nil or after_first == nil or spec.start == nil or spec.stop == nil
    or (spec.kind ~= 'cron' and spec.kind ~= 'every')
    or not printable(spec.expr, SCHEDULE_TEXT_MAX, true)
    or not printable(spec.tz, SCHEDULE_TEXT_MAX, true)
    or #spec.payload > MAX_PAYLOAD_BYTES or spec.max > MAX_ATTEMPTS
    or spec.runs_max > MAX_SCHEDULE_RUNS
    or (spec.overlap ~= 'allow' and spec.overlap ~= 'skip')
    or (spec.catch ~= 'none' and spec.catch ~= 'one' and spec.catch ~= 'all')
    or not printable(spec.hash, SCHEDULE_TEXT_MAX, true) then
    return bad_argument()
end

local seq, layout_err = occurrence_layout()
if layout_err then return layout_err end
local now, now_us = clock()

local s = schedule_read(name)
if s and mode == 'add' then return {'exists', schedule_next_due(s, now)} end
if not s and mode == 'resume' then return {'not_found', -1} end
if (s and s.hash ~= expected) or (not s and expected ~= '') then return {'conflict', -1} end
if s and mode == 'upsert' and s.hash == spec.hash then
    return {'unchanged', schedule_next_due(s, now)}
end
if s and mode == 'resume' and s.paused == 0 then return {'resumed', schedule_next_due(s, now)} end

local status = 'created'
if s then
    status = mode == 'resume' and 'resumed' or 'updated'
    cancel_ahead(s, now)
    for k, v in pairs(spec) do s[k] = v end
    s.updated = now
    if mode == 'resume' then s.paused = 0 end
else
    s = spec
    s.anchor, s.created, s.updated, s.paused = anchor, now, now, 0
    s.ahead, s.ahead_id, s.prev, s.prev_id = -1, '', -1, ''
    s.runs, s.missed, s.skipped = 0, 0, 0
end
-- A paused schedule keeps its pause through a changed spec: a deploy declaring its schedules
-- must not resume what an operator paused.
s.next = first
if s.runs_max > 0 and s.runs >= s.runs_max then s.next = -1 end
if s.paused == 0 and s.next >= 0 and s.overlap == 'allow' then
    local id = prefix .. str(first)
    local sent = send_occurrence(s, id, first, now, now_us, seq)
    if sent then
        s.prev, s.prev_id = s.ahead, s.ahead_id
        s.ahead, s.ahead_id = first, id
        s.runs = s.runs + 1
        redis.call('HINCRBY', K.stats, 'schedule_fired', '1')
    end
    s.next = after_first
    if s.runs_max > 0 and s.runs >= s.runs_max then s.next = -1 end
end
schedule_write(name, s)
schedule_claim_at(name, s)
return {status, schedule_next_due(s, now)}
