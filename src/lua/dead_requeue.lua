#!lua flags=allow-oom
-- dead_requeue: moves dead letters back to pending, due now, with a fresh attempt budget, no
-- expiry and no last error. allow-oom: it does not grow memory.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: 1 limit (1..MAX_BATCH), then the ids (at most limit); without ids, the oldest `limit`
--   dead letters. An id no message may have (see validate_id) is refused.
-- Returns: {requeued, dead_left}
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/seq.lua
-- @include lib/record.lua
-- @include lib/dead.lua
-- @include lib/wake.lua
-- @include lib/layout.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

local limit = uint(ARGV[1])
if limit == nil or limit < 1 or limit > MAX_BATCH or #ARGV - 1 > limit then
    return bad_argument()
end
for i = 2, #ARGV do
    if not is_id(ARGV[i]) then return bad_argument() end
end
local layout_err = check_layout(true)
if layout_err then return layout_err end
local members = dead_members({unpack(ARGV, 2)}, limit)
local now = clock()
local head = head_due()
local requeued = 0
for _, member in ipairs(members) do
    local id = id_of(member)
    local m = record_of(member, redis.call('HGET', K.msg, id))
    redis.call('ZREM', K.dead, member)
    if not m then
        redis.call('HINCRBY', K.stats, 'orphans_removed', '1')
    else
        m.attempts, m.expire, m.token, m.reason, m.due = 0, 0, 0, '', now
        redis.call('HSET', K.msg, id, encode(m))
        redis.call('HDEL', K.err, id)
        redis.call('ZADD', K.pending, str(now), member)
        requeued = requeued + 1
    end
end
if requeued > 0 then
    redis.call('HINCRBY', K.stats, 'requeued', requeued)
    wake_if_earlier(head, now, now)
end
return {requeued, redis.call('ZCARD', K.dead)}
