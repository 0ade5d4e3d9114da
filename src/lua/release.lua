#!lua flags=allow-oom
-- release: hands leased messages that no handler started back at once (a consumer stopping), at
-- their original due time and without counting the attempt. A stale token changes nothing.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: the lease of each message (1 to MAX_BATCH, see ack.lua: any text, lost unless held).
-- Returns: one integer per lease: 1 released, 0 lease lost (or its record lost with Redis data:
--   the lease is dropped and counted in orphans_removed, as nack and fetch count it).
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/lease.lua
-- @include lib/record.lua
-- @include lib/wake.lua
-- @include lib/layout.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

if #ARGV == 0 or #ARGV > MAX_BATCH then return bad_argument() end
local layout_err = check_layout(true)
if layout_err then return layout_err end
local now = clock()
local head = head_due()
local out, earliest, released, orphans = {}, nil, 0, 0
for i = 1, #ARGV do
    local id = lease_id(ARGV[i])
    local rec = false
    if redis.call('ZREM', K.inflight, ARGV[i]) == 1 then
        rec = redis.call('HGET', K.msg, id)
        -- A lease that outlived its record (Redis lost data) is dropped: an orphan.
        if not rec then orphans = orphans + 1 end
    end
    if rec then
        local m = decode(rec)
        local member = member_of(id, m)
        m.token = 0
        m.attempts = m.attempts - 1
        redis.call('HSET', K.msg, id, encode(m))
        redis.call('ZADD', K.pending, str(m.due), member)
        if earliest == nil or m.due < earliest then earliest = m.due end
        released = released + 1
        out[#out + 1] = 1
    else
        out[#out + 1] = 0
    end
end
if orphans > 0 then redis.call('HINCRBY', K.stats, 'orphans_removed', orphans) end
if earliest then
    redis.call('HINCRBY', K.stats, 'released', released)
    wake_if_earlier(head, earliest, now)
end
return out
