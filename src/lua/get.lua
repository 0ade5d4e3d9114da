#!lua flags=no-writes
-- get: one message by id, with its state.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: 1 id (an id no message may have, see validate_id, is refused)
-- Returns: {} when there is no such message, else {state, score, attempts, max_attempts,
--   expire_at_ms, due_ms, dead reason, last error, payload}; state is 'scheduled', 'ready',
--   'in_flight' or 'dead' and score as in list.lua.
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/lease.lua
-- @include lib/record.lua
-- @include lib/find.lua
-- @include lib/settings.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

local id = ARGV[1]
if #ARGV ~= 1 or not is_id(id) then return bad_argument() end
local settings, layout_err = read_settings()
if not settings then return layout_err end
local rec = find_record(id)
if not rec then return {} end
local m = decode(rec)
local member = member_of(id, m)
local now = clock()
local state, score
if m.token ~= 0 then
    state, score = 'in_flight', redis.call('ZSCORE', K.inflight, lease_of(m.token, id))
else
    score = redis.call('ZSCORE', K.pending, member)
    if score then
        state = 'scheduled'
        if tonumber(score) <= now then state = 'ready' end
    else
        state, score = 'dead', redis.call('ZSCORE', K.dead, member)
    end
end
local due = m.due
if state == 'scheduled' or state == 'ready' then due = tonumber(score) end
return {state, tonumber(score or 0), m.attempts, max_of(m.max, settings), m.expire, due, m.reason,
        redis.call('HGET', K.err, id) or '', m.payload}
