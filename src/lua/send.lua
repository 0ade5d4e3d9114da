#!lua
-- send: stores new messages and schedules them. Without allow-oom, so a Redis at maxmemory
-- refuses the whole call before it runs: a send fails whole, never half-written.
-- KEYS: the queue's keys, see lib.lua.
-- ARGV: runs of consecutive messages that share their options, 1 to 1000 messages in all. A run
--   is six header values, then its messages:
--   count            messages in the run, >= 1
--   with_ids         '1': each message is two values, id then payload (id '' = generate one);
--                    '0': each message is its payload alone, with a generated id
--   at_ms            absolute due time, unix ms on the Redis clock, or '' to use delay_ms
--   delay_ms         delay after the Redis server's now, ms
--   max_attempts     deliveries allowed before dead-lettering, >= 1
--   expire_after_ms  0 for never; else dead-letter as 'expired' if not acked by now + this
-- Returns: three per message: id, 1 when created or 0 when the id already existed (nothing
--   changed), and the due time (unix ms) of the message that now holds the id.
-- Errors: 'ERR delayq: bad script argument', 'ERR delayq: expiry before due time' or 'ERR
--   delayq: the due time would fall after the year 9999'; nothing is written then.
local now, now_us = clock()

-- Validate every run before the first write. Options come once per run, not per message: six
-- strings per message were a tenth of a batch's cost, in parsing and in Lua strings.
local runs = {}  -- per run: first message, count, with_ids, first argument, due, max, expire
local n, i = 0, 1
while i <= #ARGV do
    if i + 5 > #ARGV then return bad_argument() end
    local count, with_ids = uint(ARGV[i]), ARGV[i + 1]
    local delay, max, expire_after = uint(ARGV[i + 3]), uint(ARGV[i + 4]), uint(ARGV[i + 5])
    if count == nil or count < 1 or (with_ids ~= '0' and with_ids ~= '1') or delay == nil
        or max == nil or max < 1 or expire_after == nil then
        return bad_argument()
    end
    local due = now + delay
    if ARGV[i + 2] ~= '' then
        due = uint(ARGV[i + 2])
        if due == nil then return bad_argument() end
    end
    if due > MAX_MS then return due_too_late() end
    local expire = 0
    if expire_after > 0 then
        expire = now + expire_after
        if expire <= due then return redis.error_reply('ERR delayq: expiry before due time') end
    end
    local width = with_ids == '1' and 2 or 1
    runs[#runs + 1] = {n + 1, count, width == 2, i + 6, due, max, expire}
    n = n + count
    i = i + 6 + count * width
    if n > 1000 then return bad_argument() end
end
if n < 1 or i ~= #ARGV + 1 then return bad_argument() end

local head = head_due()
local keys = seq_keys(take_seq(n, now_us), n)
local ids, members = keys, keys
local has_caller_ids = false
for _, run in ipairs(runs) do
    if run[3] then has_caller_ids = true end
end
if has_caller_ids then
    ids, members = {}, {}
    for _, run in ipairs(runs) do
        local first, a = run[1], run[4]
        for k = first, first + run[2] - 1 do
            local id, key = '', keys[k]
            if run[3] then
                id = ARGV[a]
                a = a + 2
            end
            if id == '' then
                ids[k], members[k] = key, key
            else
                ids[k], members[k] = id, key .. id
            end
        end
    end
end

-- A record in cmsgpack's bytes, built by concatenation: the options' part once per run, a
-- string header per distinct length. cmsgpack.pack per message was a tenth of a batch's cost.
local str_headers = {}
local function str_header(len)
    local h = str_headers[len]
    if h then return h end
    if len < 32 then
        h = string.char(0xa0 + len)
    elseif len < 256 then
        h = string.char(0xd9, len)
    elseif len < 65536 then
        h = string.char(0xda, math.floor(len / 256), len % 256)
    else
        h = string.char(0xdb, math.floor(len / 16777216), math.floor(len / 65536) % 256,
                        math.floor(len / 256) % 256, len % 256)
    end
    str_headers[len] = h
    return h
end

-- One lookup and one write for the whole batch: a command per message was most of the cost.
local found = redis.call('HMGET', K.msg, unpack(ids))
local out, hset, zadd, earliest = {}, {}, {}, nil
local o, w = 0, 0  -- lengths of out, and of hset and zadd
-- id -> index of the message of this call that created it. Without caller ids, every id of the
-- call is a distinct new sequence key and nothing needs remembering.
local created_at = has_caller_ids and {} or nil
for _, run in ipairs(runs) do
    local first, with_ids, a, due, max, expire = run[1], run[3], run[4], run[5], run[6], run[7]
    local due_s = str(due)
    -- The record's shapes (lib.lua): max and payload; or max, expire, member, payload.
    local short_prefix, long_prefix = cmsgpack.pack(max), nil
    for k = first, first + run[2] - 1 do
        local id, member, payload, caller_id = ids[k], members[k], nil, false
        if with_ids then
            caller_id = ARGV[a] ~= ''
            payload = ARGV[a + 1]
            a = a + 2
        else
            payload = ARGV[a]
            a = a + 1
        end
        local created, this_due = 1, due
        if not caller_id then
            -- A caller may have taken this id by hand; draw again until it is free.
            while found[k] or (created_at and created_at[id]) do
                id = seq_key(take_seq(1, now_us))
                member = id
                found[k] = redis.call('HEXISTS', K.msg, id) == 1
            end
        elseif found[k] then
            local m = decode(found[k])
            created, this_due = 0, due_of(member_of(id, m), m)
        elseif created_at[id] then
            created, this_due = 0, out[created_at[id] * 3]
        end
        if created == 1 then
            if created_at then created_at[id] = k end
            hset[w + 1] = id
            if member == id and expire == 0 then
                hset[w + 2] = short_prefix .. str_header(#payload) .. payload
            else
                local stored = member
                if stored == id then stored = '' end
                long_prefix = long_prefix or cmsgpack.pack(max, expire)
                hset[w + 2] = long_prefix .. str_header(#stored) .. stored ..
                              str_header(#payload) .. payload
            end
            zadd[w + 1] = due_s
            zadd[w + 2] = member
            w = w + 2
            if earliest == nil or due < earliest then earliest = due end
        end
        out[o + 1] = id
        out[o + 2] = created
        out[o + 3] = this_due
        o = o + 3
    end
end

if #zadd > 0 then
    redis.call('HSET', K.msg, unpack(hset))
    redis.call('ZADD', K.pending, unpack(zadd))
    redis.call('HINCRBY', K.stats, 'sent', #zadd / 2)
    wake_if_earlier(head, earliest, now)
end
return out
