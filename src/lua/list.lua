#!lua flags=no-writes
-- list: a page of the messages in one state, in the order they leave that state.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: 1 state: 'scheduled' | 'ready' | 'in_flight' | 'dead', 2 limit (1..MAX_BATCH messages),
--       3 after_score and 4 after_member: the position of the last element of the page before
--       (unix ms and zset member: a sequence key, followed by an id unless generated), or ''
--       and '' for the first page
-- Errors: 'ERR delayq: bad script argument'.
-- Returns: {now_ms, items, last_score, last_member}; items has nine per message: id, score (due
--   time, lease deadline or dead-letter time, unix ms), attempts, max_attempts, expire_at_ms
--   (0 = never), due_ms, dead reason ('' unless dead), last error ('' when none), payload.
--   last_score and last_member are the position of the page's last element, where the next page
--   starts; both '' when there is no next page.
-- A position rather than an offset: each page costs O(log n + limit) however deep it is, and a
-- message that left the state meanwhile does not shift the pages after it.
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/seq.lua
-- @include lib/lease.lua
-- @include lib/record.lua
-- @include lib/find.lua
-- @include lib/settings.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

local state, limit, after_score, after_member = ARGV[1], uint(ARGV[2]), ARGV[3], ARGV[4]
if #ARGV ~= 4 or limit == nil or limit < 1 or limit > MAX_BATCH
    or (state ~= 'scheduled' and state ~= 'ready' and state ~= 'in_flight' and state ~= 'dead')
    or (after_score ~= '' and uint(after_score) == nil)
    or (after_score == '') ~= (after_member == '')
    or (after_member ~= '' and not is_seq_key(after_member) and not is_lease(after_member)) then
    return bad_argument()
end
local settings, layout_err = read_settings()
if not settings then return layout_err end
local now = clock()
local set = K.pending
if state == 'in_flight' then
    set = K.inflight
elseif state == 'dead' then
    set = K.dead
end
-- The ranks of the state's elements: pending splits at now into ready, then scheduled.
local first, last = 0, redis.call('ZCARD', set) - 1
if state == 'ready' then
    last = redis.call('ZCOUNT', set, '-inf', str(now)) - 1
elseif state == 'scheduled' then
    first = redis.call('ZCOUNT', set, '-inf', str(now))
end
if after_score ~= '' then
    -- Past the last element of the page before: right after it while it is still where it was,
    -- else (it left, or moved) found by a binary search among the elements sharing its score.
    local start
    local score = redis.call('ZSCORE', set, after_member)
    if score and tonumber(score) == tonumber(after_score) then
        start = redis.call('ZRANK', set, after_member) + 1
    else
        local lo = redis.call('ZCOUNT', set, '-inf', '(' .. after_score)
        local hi = redis.call('ZCOUNT', set, '-inf', after_score)
        while lo < hi do
            local mid = math.floor((lo + hi) / 2)
            if redis.call('ZRANGE', set, mid, mid)[1] < after_member then
                lo = mid + 1
            else
                hi = mid
            end
        end
        start = lo
    end
    if start > first then first = start end
end
local page = {}
if first <= last then
    page = redis.call('ZRANGE', set, first, math.min(last, first + limit - 1), 'WITHSCORES')
end
local last_score, last_member = '', ''
if #page == 2 * limit and first + limit - 1 < last then
    last_member, last_score = page[#page - 1], page[#page]
end
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
        items[n + 4] = max_of(m.max, settings)
        items[n + 5] = m.expire
        items[n + 6] = m.due
        if set == K.pending then items[n + 6] = items[n + 2] end
        items[n + 7] = m.reason
        items[n + 8] = redis.call('HGET', K.err, id) or ''
        items[n + 9] = m.payload
    end
end
return {now, items, last_score, last_member}
