#!lua flags=no-writes
-- schedule_get: one schedule, or a page of them, with where the last occurrence's message is.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: 1 'one' then 2 name | 1 'page' then 2 cursor ('0' first; HSCAN's, decimal digits) and
--       3 count (1..MAX_BATCH)
-- Returns: {now_ms, next_cursor ('0' after the last page; '' for 'one'), then per schedule: name,
--   the spec values (lib/schedule.lua's SCHEDULE_SPEC order), anchor, created, updated, paused,
--   next_due (-1 for none), last fired (-1 for none), last id, last outcome ('none' | 'pending'
--   | 'in_flight' | 'dead' | 'gone'), last dead reason, runs, missed, skipped, next}.
--   'one' of no schedule: {now_ms, ''}.
-- Errors: 'ERR delayq: bad script argument'.
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/layout.lua
-- @include lib/schedule.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

local what = ARGV[1]
local names, cursor = {}, ''
if what == 'one' and #ARGV == 2 and is_schedule_name(ARGV[2]) then
    names[1] = ARGV[2]
elseif what == 'page' then
    local count = uint(ARGV[3])
    -- HSCAN's cursor: decimal digits of an unsigned 64-bit number.
    if #ARGV ~= 3 or type(ARGV[2]) ~= 'string' or #ARGV[2] > 20 or not ARGV[2]:find('^%d+$')
        or count == nil or count < 1 or count > MAX_BATCH then
        return bad_argument()
    end
    local page = redis.call('HSCAN', K.schedules, ARGV[2], 'COUNT', str(count))
    cursor = page[1]
    for i = 1, #page[2], 2 do names[#names + 1] = page[2][i] end
else
    return bad_argument()
end
local layout_err = check_layout()
if layout_err then return layout_err end
local now = clock()
local out = {now, cursor}
for _, name in ipairs(names) do
    local s = schedule_read(name)
    if s then
        out[#out + 1] = name
        schedule_spec_values(s, out)
        -- The last occurrence that fell due: the one sent ahead once its instant passed.
        local last, last_id = s.prev, s.prev_id
        if s.ahead >= 0 and s.ahead <= now then last, last_id = s.ahead, s.ahead_id end
        local outcome, reason = message_state(last_id)
        for _, v in ipairs({s.anchor, s.created, s.updated, s.paused,
                            schedule_next_due(s, now), last, last_id, outcome, reason, s.runs,
                            s.missed, s.skipped, s.next}) do
            out[#out + 1] = v
        end
    end
end
return out
