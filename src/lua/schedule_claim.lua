#!lua
-- schedule_claim: a scheduler's claim of a schedule's occurrences, from `expected` (the next
-- occurrence it read with schedule_poll) on: sends the messages of the given instants (late
-- ones within the grace, those the catch-up policy keeps, and with overlap allow the next one
-- ahead), counts the missed ones, and stores the occurrence after them. Conditional on the
-- schedule's next and spec hash being those the scheduler read: of any number of schedulers
-- claiming at once, one claims and the others are told 'conflict', so each occurrence is sent
-- once.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: 1 name (as in schedule_put)
--       2 hash: the spec hash read
--       3 expected: the schedule's next occurrence read (ms, or -1)
--       4 id prefix, as in schedule_put
--       5 then: the schedule's next occurrence after this claim (ms), -1 when it ends
--       6 missed: occurrences not sent by the catch-up policy
--       7.. the instants to send (ms, ascending; at most MAX_BATCH)
--       Times are decimal digits up to MAX_TIME_MS (or '-1' where it says so).
-- With overlap skip, while the last occurrence sent is still pending or in flight the instants
-- are skipped instead (counted). max_runs stops the sends at that many.
-- Returns: {status, sent, skipped, claim_at_ms}: status 'claimed' | 'conflict' | 'paused' |
--   'gone' (no such schedule); claim_at_ms when a scheduler must next claim, -1 for never.
-- Errors: 'ERR delayq: bad script argument'; nothing is written then.
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/layout.lua
-- @include lib/schedule.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

local name, hash, expected, prefix = ARGV[1], ARGV[2], uint_or_none(ARGV[3]), ARGV[4]
local after, missed = uint_or_none(ARGV[5]), uint(ARGV[6])
-- Every value checked before the first write: `then` was stored as given (tonumber), so that
-- "nan" or "1e308" became the schedule's next occurrence and its claim's score.
if #ARGV < 6 or not is_schedule_name(name) or not printable(hash, SCHEDULE_TEXT_MAX, true)
    or expected == nil or not is_id_prefix(prefix) or after == nil or missed == nil
    or #ARGV - 6 > MAX_BATCH then
    return bad_argument()
end
local instants = {}
for i = 7, #ARGV do
    local t = uint(ARGV[i])
    if t == nil or (i > 7 and t <= instants[#instants]) then return bad_argument() end
    instants[#instants + 1] = t
end

local seq, layout_err = occurrence_layout()
if layout_err then return layout_err end
local now, now_us = clock()

local s = schedule_read(name)
if not s then return {'gone', 0, 0, -1} end
if s.paused == 1 then return {'paused', 0, 0, -1} end
if s.hash ~= hash or s.next ~= expected then
    local at = redis.call('ZSCORE', K.schedclaims, name)
    return {'conflict', 0, 0, at and tonumber(at) or -1}
end

local sent, skipped = 0, 0
local busy = false
if s.overlap == 'skip' then
    local state = message_state(s.ahead_id)
    busy = state == 'pending' or state == 'in_flight'
end
for _, t in ipairs(instants) do
    if busy or (s.runs_max > 0 and s.runs >= s.runs_max) then
        skipped = skipped + 1
    else
        local id = prefix .. str(t)
        local ok
        ok, seq = send_occurrence(s, id, t, now, now_us, seq)
        if ok then
            s.prev, s.prev_id = s.ahead, s.ahead_id
            s.ahead, s.ahead_id = t, id
            s.runs = s.runs + 1
            sent = sent + 1
        end
    end
end
-- Instants past max_runs are not skipped by overlap: they are the schedule's end.
if not busy and s.runs_max > 0 and s.runs >= s.runs_max then
    skipped = 0
    after = -1
end
s.next = after
s.missed = s.missed + missed
s.skipped = s.skipped + skipped
schedule_write(name, s)
local at = schedule_claim_at(name, s)
if sent > 0 then redis.call('HINCRBY', K.stats, 'schedule_fired', str(sent)) end
if missed > 0 then redis.call('HINCRBY', K.stats, 'schedule_missed', str(missed)) end
if skipped > 0 then redis.call('HINCRBY', K.stats, 'schedule_skipped', str(skipped)) end
return {'claimed', sent, skipped, at}
