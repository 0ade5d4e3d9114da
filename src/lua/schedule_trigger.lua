#!lua
-- schedule_trigger: sends one occurrence of a schedule now, outside its own occurrences (which
-- stay as they are), with the schedule's message and the id of the current instant.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: 1 name, 2 id prefix (as in schedule_put; names and prefixes of other forms are refused)
-- Returns: {status, instant_ms}: 'triggered' | 'duplicate' (an occurrence of this very
--   millisecond exists: nothing sent) | 'not_found'.
-- Errors: 'ERR delayq: bad script argument'; nothing is written then.
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/layout.lua
-- @include lib/schedule.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

local name, prefix = ARGV[1], ARGV[2]
if #ARGV ~= 2 or not is_schedule_name(name) or not is_id_prefix(prefix) then
    return bad_argument()
end
local seq, layout_err = occurrence_layout()
if layout_err then return layout_err end
local s = schedule_read(name)
if not s then return {'not_found', -1} end
local now, now_us = clock()
local sent = send_occurrence(s, prefix .. str(now), now, now, now_us, seq)
if not sent then return {'duplicate', now} end
return {'triggered', now}
