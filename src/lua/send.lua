#!lua
-- send: stores new messages and schedules them. Without allow-oom, so a Redis at maxmemory
-- refuses the whole call before it runs: a send fails whole, never half-written.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: runs of consecutive messages that share their options, 1 to MAX_BATCH messages in all.
--   A run is six header values, then its messages:
--   count            messages in the run, >= 1
--   with_ids         '0': generated ids and no expiry; each message is its record, built by
--                    the client without the due time (lib/record.lua: msgpack max_attempts,
--                    then the payload as a msgpack string), so that only the due time's 9
--                    bytes are added here (a block keeps it as it is);
--                    '1': each message is two values, id then payload (id '' = generate one;
--                    an id no message may have, see validate_id, is refused)
--   at_ms            absolute due time, unix ms on the Redis clock, or '' to use delay_ms, or
--                    '*': each message is preceded by its own due time (unix ms)
--   delay_ms         delay after the Redis server's now, ms, or '*' (with at_ms ''): each
--                    message is preceded by its own delay (ms)
--   max_attempts     deliveries allowed before dead-lettering (at most MAX_ATTEMPTS), or 0 for
--                    the queue's setting
--                    (kept as 0 in the record, so that a change of the setting applies)
--   expire_after_ms  0 for never; else from now + this on, the message is no longer delivered:
--                    the first fetch, nack or lapsed lease that meets it dead-letters it as
--                    'expired' (a delivery under way may still be acked; design.md, Expiry).
--                    Must be 0 when with_ids is '0'.
-- Records go to msg, or to cold for a run due more than COLD_AFTER_MS after now, or to blocks
-- for such a run of at least BLOCK_MIN generated ids (lib/blocks.lua).
-- Message k of the call (from 1) gets sequence number first + k - 1; a generated id is that
-- number as a sequence key. Caller ids of SEQ_LEN lowercase hex digits are refused: they are the
-- generated ids' form, so a generated id never meets a caller's.
-- Messages that each have their own due time share a run that way: a header per message was
-- half of such a batch's cost.
-- Returns: {first, the due time (unix ms) of each run (of a run with a due time or delay per
--   message: the server's now its delays count from), then for each message with a caller id
--   -1 when it was created, or the due time of the message that already held the id (nothing
--   changed)}. Nothing per message with a generated id: a reply value per message was a tenth
--   of a batch's cost.
-- Errors: 'ERR delayq: bad script argument', 'ERR delayq: expiry before due time' or 'ERR
--   delayq: the due time would fall after the year 9999'; nothing is written then.
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/seq.lua
-- @include lib/record.lua
-- @include lib/find.lua
-- @include lib/blocks.lua
-- @include lib/wake.lua
-- @include lib/layout.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

local now, now_us = clock()

-- Validate every run before the first write. Options come once per run, not per message: six
-- strings per message were a tenth of a batch's cost, in parsing and in Lua strings.
local runs = {}  -- per run: first message, count, with_ids, first argument, due, max, expire,
                 -- and the due of each message when they state their own (else nil)
local n, i = 0, 1
local has_caller_ids = false
while i <= #ARGV do
    if i + 5 > #ARGV then return bad_argument() end
    local count, with_ids = uint(ARGV[i]), ARGV[i + 1] == '1'
    local own_at = ARGV[i + 2] == '*'
    local own_delay = ARGV[i + 2] == '' and ARGV[i + 3] == '*'
    local own = own_at or own_delay  -- each message is preceded by its due time or delay
    local delay = own and 0 or uint(ARGV[i + 3])
    local max, expire_after = uint(ARGV[i + 4]), uint(ARGV[i + 5])
    if count == nil or count < 1 or (not with_ids and ARGV[i + 1] ~= '0') or delay == nil
        or max == nil or max > MAX_ATTEMPTS or expire_after == nil
        or (not with_ids and expire_after > 0) or (own_at and ARGV[i + 3] ~= '') then
        return bad_argument()
    end
    local due = now + delay
    if ARGV[i + 2] ~= '' and not own then
        due = uint(ARGV[i + 2])
        if due == nil then return bad_argument() end
    end
    if due > MAX_TIME_MS then return due_too_late() end
    local expire = 0
    if expire_after > 0 then
        expire = now + expire_after
        if expire <= due then return redis.error_reply('ERR delayq: expiry before due time') end
    end
    local width = (with_ids and 2 or 1) + (own and 1 or 0)
    if i + 5 + count * width > #ARGV then return bad_argument() end
    local dues = nil
    if own then
        dues = {}
        local base = own_delay and now or 0
        for a = i + 6, i + 5 + count * width, width do
            local d = uint(ARGV[a])
            if d == nil then return bad_argument() end
            d = base + d
            if d > MAX_TIME_MS then return due_too_late() end
            if expire > 0 and expire <= d then
                return redis.error_reply('ERR delayq: expiry before due time')
            end
            dues[#dues + 1] = d
        end
        due = now
    end
    local first_value = i + 6 + (own and 1 or 0)  -- of the first message, after its due
    if with_ids then
        has_caller_ids = true
        for a = first_value, i + 5 + count * width, width do
            local id = ARGV[a]
            if is_seq_key(id) or (id ~= '' and not is_id(id)) then return bad_argument() end
        end
    elseif ARGV[first_value]:byte(1) ~= (max < 128 and max or cmsgpack.pack(max):byte(1)) then
        -- A cheap check that the records follow this contract: the first one starts with max,
        -- which msgpack writes below 128 as that byte (a positive fixint) without a pack.
        return bad_argument()
    end
    runs[#runs + 1] = {n + 1, count, with_ids, i + 6, due, max, expire, dues}
    n = n + count
    i = i + 6 + count * width
    if n > MAX_BATCH then return bad_argument() end
end
if n < 1 or i ~= #ARGV + 1 then return bad_argument() end
-- The layout check and the sequence counter in one read.
local meta = redis.call('HMGET', K.settings, 'layout', 'seq')
local layout = meta[1]
local layout_err = layout_error(layout, true)
if layout_err then return layout_err end

local head = head_due()
local first = take_seq(n, meta[2], now_us)
local keys = seq_keys(first, n)

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

-- The records that already hold the caller ids, in one lookup: a command per message was most
-- of the cost.
local found, caller_ids = {}, {}
if has_caller_ids then
    for _, run in ipairs(runs) do
        if run[3] then
            local width = run[8] and 3 or 2
            for a = run[4] + width - 2, run[4] + run[2] * width - 1, width do
                if ARGV[a] ~= '' then caller_ids[#caller_ids + 1] = ARGV[a] end
            end
        end
    end
    if #caller_ids > 0 then found = find_records(caller_ids) end
end

-- New records go to msg, or to cold when due more than COLD_AFTER_MS ahead, or to blocks for a
-- long enough run of generated ids due that far ahead (see lib/blocks.lua).
local out, hot, cold, zadd, earliest = {first}, {}, {}, {}, nil
local blocks, blockidx = {}, {}  -- HSET arguments for blocks, ZADD arguments for blockidx
-- Stores ARGV[from..to], the records of the call's messages m.. (in order), as one block.
local function add_block(from, to, m)
    local name, b = keys[m], #blocks
    blocks[b + 1], blocks[b + 2] = name, make_block(ARGV, from, to)
    blocks[b + 3], blocks[b + 4] = name .. '#', tostring(to - from + 1)
    blockidx[#blockidx + 1] = str(first + m - 1)
    blockidx[#blockidx + 1] = name
end
-- Stores the n records ARGV[a..] of the call's messages m.. as blocks of at most
-- BLOCK_MAX_BYTES of records and at least BLOCK_MIN of them; records that cannot make one
-- (larger than that, or too few between two such) go one each to hset (cold's arguments).
local function add_blocks(hset, a, n, m)
    local h = #hset
    local function store(from, to)
        if to - from + 1 >= BLOCK_MIN then
            add_block(from, to, m + from - a)
            return
        end
        for j = from, to do
            hset[h + 1], hset[h + 2] = keys[m + j - a], ARGV[j]
            h = h + 2
        end
    end
    local from, bytes, last = a, 0, a + n - 1
    for j = a, last do
        local len = #ARGV[j]
        if len > BLOCK_MAX_BYTES then
            store(from, j - 1)
            store(j, j)
            from, bytes = j + 1, 0
        elseif bytes + len > BLOCK_MAX_BYTES then
            store(from, j - 1)
            from, bytes = j, len
        else
            bytes = bytes + len
        end
    end
    store(from, last)
end
local w = 0  -- length of zadd
for r, run in ipairs(runs) do out[r + 1] = run[5] end
-- Stores the records of a run of generated ids whose messages each state their due time:
-- ARGV[a] is a message's due time or delay, ARGV[a + 1] its record.
local function add_own_dues(k, a, dues)
    local h, c = #hot, #cold
    for j = 1, #dues do
        local key, due = keys[k], dues[j]
        if due - now > COLD_AFTER_MS then
            cold[c + 1], cold[c + 2] = key, with_due(due, ARGV[a + 1])
            c = c + 2
        else
            hot[h + 1], hot[h + 2] = key, with_due(due, ARGV[a + 1])
            h = h + 2
        end
        zadd[w + 1], zadd[w + 2] = str(due), key
        if earliest == nil or due < earliest then earliest = due end
        w, k, a = w + 2, k + 1, a + 2
    end
end
local f = 0  -- caller ids looked up so far
local created_at = {}  -- caller id -> due of the message of this call that created it
for _, run in ipairs(runs) do
    local k, with_ids, a, due, max, expire = run[1], run[3], run[4], run[5], run[6], run[7]
    local dues = run[8]
    local due_s = str(due)
    local hset = due - now > COLD_AFTER_MS and cold or hot
    local h = #hset  -- length of hset
    if dues and not with_ids then
        add_own_dues(k, a, dues)
    elseif not with_ids then
        if earliest == nil or due < earliest then earliest = due end
        if hset == cold and run[2] >= BLOCK_MIN then
            add_blocks(hset, a, run[2], k)
            for _ = 1, run[2] do
                zadd[w + 1], zadd[w + 2] = due_s, keys[k]
                w, k = w + 2, k + 1
            end
        else
            -- The client built the records without the due time (lib/record.lua).
            local dated_prefix = due_bytes(due)
            for _ = 1, run[2] do
                local key = keys[k]
                hset[h + 1], hset[h + 2] = key, dated_prefix .. ARGV[a]
                zadd[w + 1], zadd[w + 2] = due_s, key
                h, w, k, a = h + 2, w + 2, k + 1, a + 1
            end
        end
    else
        -- The record's shapes (lib/record.lua): due, max and payload; or due, max, expire,
        -- member, payload.
        local max_part, max_expire_part = cmsgpack.pack(max), nil
        local due_part = due_bytes(due)
        local width = dues and 3 or 2
        if dues then a = a + 1 end  -- past the first message's due time
        for j = 1, run[2] do
            if dues then
                due = dues[j]
                due_s, due_part = str(due), due_bytes(due)
                hset = due - now > COLD_AFTER_MS and cold or hot
                h = #hset
            end
            local id, payload, key = ARGV[a], ARGV[a + 1], keys[k]
            local create, member = true, key
            if id == '' then
                id = key
            else
                member = key .. id
                f = f + 1
                local rec, earlier = found[f], created_at[id]
                if rec then
                    local m = decode(rec)
                    out[#out + 1] = due_of(member_of(id, m), m)
                    create = false
                elseif earlier then
                    out[#out + 1] = earlier
                    create = false
                else
                    out[#out + 1] = -1
                    created_at[id] = due
                end
            end
            if create then
                hset[h + 1] = id
                if member == id and expire == 0 then
                    hset[h + 2] = due_part .. max_part .. str_header(#payload) .. payload
                else
                    local stored = member
                    if stored == id then stored = '' end
                    max_expire_part = max_expire_part or cmsgpack.pack(max, expire)
                    hset[h + 2] = due_part .. max_expire_part .. str_header(#stored) .. stored ..
                                  str_header(#payload) .. payload
                end
                zadd[w + 1], zadd[w + 2] = due_s, member
                h, w = h + 2, w + 2
                if earliest == nil or due < earliest then earliest = due end
            end
            k, a = k + 1, a + width
        end
    end
end

if w > 0 then
    -- The queue's first send records the layout its records are written in.
    if not layout then redis.call('HSET', K.settings, 'layout', LAYOUT) end
    if #hot > 0 then redis.call('HSET', K.msg, unpack(hot)) end
    if #cold > 0 then redis.call('HSET', K.cold, unpack(cold)) end
    if #blocks > 0 then
        redis.call('HSET', K.blocks, unpack(blocks))
        redis.call('ZADD', K.blockidx, unpack(blockidx))
    end
    redis.call('ZADD', K.pending, unpack(zadd))
    redis.call('HINCRBY', K.stats, 'sent', w / 2)
    wake_if_earlier(head, earliest, now)
end
return out
