#!lua flags=allow-oom
-- nack: a delivery failed. The message goes back to pending after a delay, or to the dead-letter
-- set when it is out of attempts, past its expiry or rejected for good. allow-oom: a full Redis
-- must still be able to retire failed messages.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: 1 lease (see ack.lua), 2 delay_ms, or '' for the queue's backoff (settings), 3 error
--       text (kept as the last error), 4 mode: 'retry' or 'dead' (dead-letter now)
-- Returns: {'retry', due_ms} | {'dead', reason, attempts} | {'lost', 0} when the token is stale.
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/lease.lua
-- @include lib/record.lua
-- @include lib/dead.lua
-- @include lib/wake.lua
-- @include lib/settings.lua

bind_keys(KEYS)

local lease, delay = ARGV[1], nil
if ARGV[2] ~= '' then delay = uint(ARGV[2]) end
local mode = ARGV[4]
if lease == nil or (delay == nil and ARGV[2] ~= '') or (mode ~= 'retry' and mode ~= 'dead') then
    return bad_argument()
end
local settings, layout_err = read_settings(true)
if not settings then return layout_err end
if redis.call('ZREM', K.inflight, lease) == 0 then return {'lost', 0} end
local id = lease_id(lease)
local rec = redis.call('HGET', K.msg, id)
if not rec then
    redis.call('HINCRBY', K.stats, 'orphans_removed', '1')
    return {'lost', 0}
end
local m = decode(rec)
local now, now_us = clock()
local member = member_of(id, m)
local reason = nil
if mode == 'dead' then
    reason = 'rejected'
elseif m.expire > 0 and m.expire <= now then
    reason = 'expired'
elseif m.attempts >= max_of(m.max, settings) then
    reason = 'attempts exhausted'
end
if reason then
    bury(id, m, member, now, reason, ARGV[3], nil)
    trim_dead(now, settings.dead_max_count, settings.dead_max_age_ms)
    return {'dead', reason, m.attempts}
end

if delay == nil then delay = backoff_ms(settings, m.attempts, now_us) end
-- A retry may not outlive the expiry: it then falls due at the expiry and is dead-lettered.
local due = math.min(now + delay, MAX_TIME_MS)
if m.expire > 0 and due > m.expire then due = m.expire end
local head = head_due()
m.token = 0
m.due = due
redis.call('HSET', K.msg, id, encode(m))
redis.call('HSET', K.err, id, ARGV[3])
redis.call('ZADD', K.pending, str(due), member)
redis.call('HINCRBY', K.stats, 'retried', '1')
wake_if_earlier(head, due, now)
return {'retry', due}
