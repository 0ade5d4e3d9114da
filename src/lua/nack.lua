#!lua flags=allow-oom
-- nack: a delivery failed. The message goes back to pending after a delay, or to the dead-letter
-- set when it is out of attempts, past its expiry or rejected for good. allow-oom: a full Redis
-- must still be able to retire failed messages.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: 1 lease (see ack.lua: any text, lost unless held), 2 delay_ms
--       (0..MAX_TIME_MS), or '' for the queue's backoff (settings), 3 error text (kept as the
--       last error, cut to MAX_ERROR_BYTES), 4 mode: 'retry' or 'dead' (dead-letter now)
-- Errors: 'ERR delayq: bad script argument'; nothing is written then.
-- Returns: {'retry', due_ms} | {'dead', reason, attempts} | {'lost', 0} when the token is stale.
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/lease.lua
-- @include lib/record.lua
-- @include lib/dead.lua
-- @include lib/wake.lua
-- @include lib/settings.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

local lease, delay, err_text, mode = ARGV[1], nil, ARGV[3], ARGV[4]
if ARGV[2] ~= '' then delay = uint(ARGV[2]) end
if #ARGV ~= 4 or (delay == nil and ARGV[2] ~= '')
    or (mode ~= 'retry' and mode ~= 'dead') then
    return bad_argument()
end
err_text = err_text:sub(1, MAX_ERROR_BYTES)
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
    bury(id, m, member, now, reason, err_text, nil)
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
redis.call('HSET', K.err, id, err_text)
redis.call('ZADD', K.pending, str(due), member)
redis.call('HINCRBY', K.stats, 'retried', '1')
wake_if_earlier(head, due, now)
return {'retry', due}
