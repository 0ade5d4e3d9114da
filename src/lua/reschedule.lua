#!lua flags=allow-oom
-- reschedule: moves the due time of a pending or ready message. A message in flight or
-- dead-lettered is left as it is and its state reported. allow-oom: it does not grow memory
-- (a record of layout 1 gains its 9-byte due time: bounded, and once).
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: 1 id (an id no message may have, see validate_id, is refused), 2 at_ms (absolute
--       due, unix ms on the Redis clock) or '' to use 3, 3 delay_ms (after the Redis server's
--       now; given, and checked, even with 2)
-- Returns: {'rescheduled', due_ms} | {'not_found', 0} | {'in_flight', 0} | {'dead', 0}
--   A due time after the message's expiry is moved to the expiry (it is dead-lettered then).
-- Errors: 'ERR delayq: bad script argument', 'ERR delayq: the due time would fall after the
--   year 9999' (nothing changes).
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/record.lua
-- @include lib/find.lua
-- @include lib/wake.lua
-- @include lib/layout.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

local id, at, delay = ARGV[1], ARGV[2], uint(ARGV[3])
local at_ms = at ~= '' and uint(at)
if #ARGV ~= 3 or not is_id(id) or delay == nil or at_ms == nil then return bad_argument() end
local layout_err = check_layout(true)
if layout_err then return layout_err end
local now = clock()
local due = at_ms or now + delay
if due > MAX_TIME_MS then return due_too_late() end
local rec, hash = find_record(id)
if not rec then return {'not_found', 0} end
local m = decode(rec)
local member = member_of(id, m)
if m.token ~= 0 then return {'in_flight', 0} end
if not redis.call('ZSCORE', K.pending, member) then return {'dead', 0} end
if m.expire > 0 and due > m.expire then due = m.expire end
local head = head_due()
-- The record keeps the due time with the score (lib/record.lua), except in a block, whose
-- records have none.
if hash ~= K.blocks then redis.call('HSET', hash, id, dated(rec, due)) end
redis.call('ZADD', K.pending, str(due), member)
wake_if_earlier(head, due, now)
return {'rescheduled', due}
