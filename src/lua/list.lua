#!lua flags=no-writes
-- list: a page of the messages in one state, in the order they leave that state.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: 1 state: 'scheduled' | 'ready' | 'in_flight' | 'dead', 2 offset (messages),
--       3 limit (1..MAX_BATCH messages)
-- Returns: {now_ms, items}; items has nine per message: id, score (due time, lease deadline or
--   dead-letter time, unix ms), attempts, max_attempts, expire_at_ms (0 = never), due_ms,
--   dead reason ('' unless dead), last error ('' when none), payload.
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/seq.lua
-- @include lib/lease.lua
-- @include lib/record.lua
-- @include lib/find.lua

local state, offset, limit = ARGV[1], uint(ARGV[2]), uint(ARGV[3])
if offset == nil or limit == nil or limit < 1 or limit > MAX_BATCH then
    return bad_argument()
end
local now = clock()
local set, lo, hi = K.pending, '-inf', '+inf'
if state == 'scheduled' then
    lo = '(' .. str(now)
elseif state == 'ready' then
    hi = str(now)
elseif state == 'in_flight' then
    set = K.inflight
elseif state == 'dead' then
    set = K.dead
else
    return bad_argument()
end
local page = redis.call('ZRANGEBYSCORE', set, lo, hi, 'WITHSCORES', 'LIMIT', offset, limit)
local ids = {}
for i = 1, #page, 2 do
    if set == K.inflight then
        ids[#ids + 1] = lease_id(page[i])
    else
        ids[#ids + 1] = id_of(page[i])
    end
end
-- Pending messages' records in one lookup (a block is read once for all of its messages);
-- the others are in msg.
local recs = {}
if set == K.pending and #ids > 0 then
    recs = find_records(ids)
else
    for k, id in ipairs(ids) do recs[k] = find_record(id) end
end
local items = {}
for i = 1, #page, 2 do
    local id, rec = ids[(i + 1) / 2], recs[(i + 1) / 2]
    if rec then
        local m = decode(rec)
        local n = #items
        items[n + 1] = id
        items[n + 2] = tonumber(page[i + 1])
        items[n + 3] = m.attempts
        items[n + 4] = m.max
        items[n + 5] = m.expire
        items[n + 6] = m.due
        if set == K.pending then items[n + 6] = items[n + 2] end
        items[n + 7] = m.reason
        items[n + 8] = redis.call('HGET', K.err, id) or ''
        items[n + 9] = m.payload
    end
end
return {now, items}
