#!lua flags=allow-oom
-- nack: a delivery failed. The message goes back to pending after a delay, or to the dead-letter
-- set when it is out of attempts, past its expiry or rejected for good. allow-oom: a full Redis
-- must still be able to retire failed messages.
-- KEYS: the queue's keys, see lib.lua.
-- ARGV: 1 lease (see ack.lua), 2 delay_ms, or '' for the backoff of ARGV 7-10, 3 error text
--       (kept as the last error), 4 mode: 'retry' or 'dead' (dead-letter now), 5 dead_max_count
--       (0 = unbounded), 6 dead_max_age_ms (0 = unbounded), 7 backoff initial_ms, 8 backoff
--       max_ms, 9 backoff multiplier (>= 1), 10 backoff jitter (a fraction, 0 to 1)
-- Returns: {'retry', due_ms} | {'dead', reason, attempts} | {'lost', 0} when the token is stale.
local lease, delay = ARGV[1], nil
if ARGV[2] ~= '' then delay = uint(ARGV[2]) end
local mode, dead_max_count, dead_max_age = ARGV[4], uint(ARGV[5]), uint(ARGV[6])
local initial, max_delay = uint(ARGV[7]), uint(ARGV[8])
local multiplier, jitter = tonumber(ARGV[9]), tonumber(ARGV[10])
if lease == nil or (delay == nil and ARGV[2] ~= '') or (mode ~= 'retry' and mode ~= 'dead')
    or dead_max_count == nil or dead_max_age == nil or initial == nil or max_delay == nil
    or multiplier == nil or multiplier < 1 or jitter == nil or jitter < 0 or jitter > 1 then
    return bad_argument()
end
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
elseif m.attempts >= m.max then
    reason = 'attempts exhausted'
end
if reason then
    bury(id, m, member, now, reason, ARGV[3], nil)
    trim_dead(now, dead_max_count, dead_max_age)
    return {'dead', reason, m.attempts}
end

if delay == nil then
    -- The backoff for the attempts made, spread by the jitter. The script knows the attempts, so
    -- a caller holding only a lease (the HTTP service's clients) gets the same backoff as a
    -- Consumer; the clock's microseconds are random enough to keep retries apart.
    local base = math.min(initial * multiplier ^ (math.max(m.attempts, 1) - 1), max_delay)
    local spread = 1 + jitter * (2 * (now_us % 1000000) / 1000000 - 1)
    delay = math.max(0, math.min(math.floor(base * spread + 0.5), max_delay))
end
-- A retry may not outlive the expiry: it then falls due at the expiry and is dead-lettered.
local due = math.min(now + delay, MAX_MS)
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
