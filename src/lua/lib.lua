-- Shared helpers, spliced by cmake/embed_lua.cmake into every script right after its shebang.
--
-- Every script gets the same KEYS, all of one queue and all with the queue's hash tag:
--   KEYS[1] msg      hash   id -> record (cmsgpack, see encode below)
--   KEYS[2] pending  zset   member -> due time (unix ms, Redis clock); due <= now means ready
--   KEYS[3] inflight zset   lease -> lease deadline (unix ms); a lease is the delivery's token as
--                           a sequence key followed by the id, so it exists exactly while that
--                           delivery holds the message: ack is one ZREM, with no record to read
--   KEYS[4] dead     zset   member -> time it was dead-lettered (unix ms)
--   KEYS[5] err      hash   id -> last error text (only for messages that failed at least once)
--   KEYS[6] stats    hash   counter name -> total
--   KEYS[7] seq      string counter for sequence keys and delivery tokens
--   KEYS[8] wake     shard channel that wakes sleeping consumers (SPUBLISH)
--   KEYS[9] cold     hash   id -> record of a message sent due more than COLD_AFTER_MS ahead,
--                           until its first delivery moves it to msg (see find_records)
--   KEYS[10] blocks  hash   block -> the records of a run of at least BLOCK_MIN messages with
--                           generated ids sent due more than COLD_AFTER_MS ahead, in place of a
--                           cold record each (see block_record); block .. '#' -> how many of
--                           them are still pending. A block is named by its first message's id.
--   KEYS[11] blockidx zset  block -> its first sequence number, to find the block of an id
--   KEYS[12] settings hash  the queue's settings (SETTINGS below; absent fields take their
--                           defaults) and 'layout', the version of this key layout and record
--                           format (LAYOUT), which every script checks first
-- A zset member is the message's 14-character sequence key followed by the caller's id, or just
-- the sequence key when the id was generated (then the id is the sequence key). The sequence key
-- sorts in send order, so messages due in the same millisecond leave in send order.
local K = {
    msg = KEYS[1], pending = KEYS[2], inflight = KEYS[3], dead = KEYS[4],
    err = KEYS[5], stats = KEYS[6], seq = KEYS[7], wake = KEYS[8], cold = KEYS[9],
    blocks = KEYS[10], blockidx = KEYS[11], settings = KEYS[12],
}

local SEQ_LEN = 14
-- Constant command arguments are strings ('0', '1', SWEEP): Lua formats a number argument with
-- sprintf("%.14g"), about 2,400 instructions each (callgrind).
local SWEEP = '200'                -- expired leases handled per call, to bound the work per call
local TRIM = 100                   -- dead letters removed by retention per call
local MAX_MS = 253402300799999     -- 9999-12-31T23:59:59.999Z
-- A message sent due more than this far ahead keeps its record in the cold hash until it is
-- first delivered: a backlog of far-future messages then leaves the msg hash, which every
-- send, fetch and ack of near messages touches, small enough to stay in the CPU's caches.
local COLD_AFTER_MS = 3600000
-- A far-future run of generated ids this long or longer is stored as blocks of at least this
-- many records: one hash field per block instead of one per message halves what a batch send
-- costs Redis (a dict insert per message is most of it) and takes ~70 bytes off each message.
-- Fewer records would pay more for the block's own entries than they save.
local BLOCK_MIN = 16
-- A block's records take at most this many bytes, so that 2-byte offsets reach every record
-- and a fetch that reads a block to take one message copies at most this much.
local BLOCK_MAX_BYTES = 65535
-- A block keeps the bytes of the messages that left it until its last one leaves. So that a
-- few long-lived messages (the rest cancelled or delivered) do not keep a whole block, a block
-- whose pending messages fall to 1/BLOCK_DISSOLVE of what it holds, or whose bytes exceed
-- BLOCK_PIN_BYTES per pending message, moves them to cold, one record each, and goes.
local BLOCK_DISSOLVE = 16
local BLOCK_PIN_BYTES = 4096

-- The version of the key layout and record format these scripts read and write. A queue records
-- it with its first send; a client of another version is refused with a clear error instead of
-- misreading (and then rewriting) records it does not know, e.g. during a rolling upgrade.
local LAYOUT = '1'

-- The queue's settings, stored in KEYS[12] so that every client of the queue agrees on them, and
-- their defaults. max_attempts applies to messages sent without their own (their record keeps 0,
-- so a change applies to messages not yet out of attempts); the backoff to nacks without a
-- delay; the retention bounds to the dead-letter set (0 disables one); paused stops fetch from
-- leasing anything (sends go on).
local SETTINGS = {'max_attempts', 'backoff_initial_ms', 'backoff_max_ms', 'backoff_multiplier',
                  'backoff_jitter', 'dead_max_count', 'dead_max_age_ms', 'paused'}
local SETTING_DEFAULTS = {
    max_attempts = 25, backoff_initial_ms = 1000, backoff_max_ms = 3600000,
    backoff_multiplier = 2, backoff_jitter = 0.2, dead_max_count = 100000,
    dead_max_age_ms = 2592000000, paused = 0,
}

-- An error reply when `layout` (the queue's recorded version, or nil for none yet) is not
-- LAYOUT; nil when the queue can be used.
local function layout_error(layout)
    if layout and layout ~= LAYOUT then
        return redis.error_reply('ERR delayq layout: the queue has layout version ' .. layout
            .. ' and this client speaks version ' .. LAYOUT
            .. '; run one version of delayq on a queue')
    end
    return nil
end

local function check_layout()
    return layout_error(redis.call('HGET', K.settings, 'layout'))
end

-- The queue's settings, defaults filled in; or nil and the layout error.
local function read_settings()
    local v = redis.call('HMGET', K.settings, 'layout', unpack(SETTINGS))
    local err = layout_error(v[1])
    if err then return nil, err end
    local s = {layout = v[1]}
    for i, name in ipairs(SETTINGS) do s[name] = tonumber(v[i + 1]) or SETTING_DEFAULTS[name] end
    return s
end

-- A message's max attempts: its own, or with 0 in its record the queue's setting.
local function max_of(max, settings)
    if max == 0 then return settings.max_attempts end
    return max
end

-- The backoff delay (ms) before retry `attempts` + 1, from the queue's settings: initial x
-- multiplier^(attempts - 1), capped, spread by +-jitter. The clock's microseconds are random
-- enough to keep the retries of many messages apart.
local function backoff_ms(settings, attempts, now_us)
    local base = math.min(settings.backoff_initial_ms
        * settings.backoff_multiplier ^ (math.max(attempts, 1) - 1), settings.backoff_max_ms)
    local spread = 1 + settings.backoff_jitter * (2 * (now_us % 1000000) / 1000000 - 1)
    return math.max(0, math.min(math.floor(base * spread + 0.5), settings.backoff_max_ms))
end

-- Formats a number for a command argument: Lua's default "%.14g" would round 15-digit times.
local function str(n)
    return string.format('%.0f', n)
end

-- Returns the Redis server's time as unix milliseconds and as unix microseconds.
local function clock()
    local t = redis.call('TIME')
    local s, us = tonumber(t[1]), tonumber(t[2])
    return s * 1000 + math.floor(us / 1000), s * 1000000 + us
end

-- Fixed-width lowercase hex: byte order is numeric order, and 14 digits hold every integer a
-- Lua number represents exactly (2^53). One C call: a base62 loop in Lua cost 6x as much.
local function seq_key(n)
    return string.format('%014x', n)
end

-- Every two-digit hex number in order: "00" at 1, "01" at 3, ..., "ff" at 511.
local HEX_PAIRS = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff'

-- The sequence keys of n consecutive numbers from first. A string.format per key was a tenth
-- of the cost of a batch send; this formats once per 256 keys and appends two digits.
local function seq_keys(first, n)
    local keys, prefix, block = {}, nil, -1
    for i = 1, n do
        local s = first + i - 1
        local b = math.floor(s / 256)
        if b ~= block then
            block, prefix = b, string.format('%012x', b)
        end
        local lo = (s - b * 256) * 2 + 1
        keys[i] = prefix .. HEX_PAIRS:sub(lo, lo + 1)
    end
    return keys
end

-- Reserves count consecutive sequence numbers and returns the first. The counter never falls
-- behind the server's microsecond clock, so a counter that was lost or rolled back with Redis's
-- data (a failover, an fsync window) does not hand out numbers again: not as ids, not as tokens.
local function take_seq(count, now_us)
    local last = redis.call('INCRBY', K.seq, count)
    if last <= now_us then
        last = now_us + count
        redis.call('SET', K.seq, str(last))
    end
    return last - count + 1
end

-- The lease of a delivery: its token as a sequence key, then the id.
local function lease_of(token, id)
    return seq_key(token) .. id
end

local function lease_id(lease)
    return lease:sub(SEQ_LEN + 1)
end

local function id_of(member)
    if #member == SEQ_LEN then return member end
    return member:sub(SEQ_LEN + 1)
end

-- Whether an id has a generated id's form, a sequence key: 14 lowercase hex digits.
local function is_seq_key(id)
    return #id == SEQ_LEN and not id:find('[^0-9a-f]')
end

-- A block's value: the count c of its records (2 bytes, big-endian), c end offsets (2 bytes
-- each, from the start of the records), then the records, each in lib.lua's 2-value shape as the
-- client built it. Returns the value for records rs[from..to].
local function make_block(rs, from, to)
    local bytes, n, ends = {}, to - from + 1, 0
    bytes[1], bytes[2] = (n - n % 256) / 256, n % 256
    for k = 1, n do
        ends = ends + #rs[from + k - 1]
        bytes[2 * k + 1], bytes[2 * k + 2] = (ends - ends % 256) / 256, ends % 256
    end
    return string.char(unpack(bytes)) .. table.concat(rs, '', from, to)
end

-- Record k (from 0) of a block's value.
local function block_record(block, k)
    local c1, c2 = block:byte(1, 2)
    local base = 3 + 2 * (c1 * 256 + c2)
    local p = 3 + 2 * k
    if k == 0 then
        local e1, e2 = block:byte(p, p + 1)
        return block:sub(base, base + e1 * 256 + e2 - 1)
    end
    local s1, s2, e1, e2 = block:byte(p - 2, p + 1)
    return block:sub(base + s1 * 256 + s2, base + e1 * 256 + e2 - 1)
end

-- The block that holds sequence number n, if any, as {name, first (its first number), count,
-- value}.
local function find_block(n)
    local r = redis.call('ZREVRANGEBYSCORE', K.blockidx, str(n), '-inf', 'LIMIT', '0', '1')
    if not r[1] then return nil end
    local value = redis.call('HGET', K.blocks, r[1])
    if not value then return nil end
    local c1, c2 = value:byte(1, 2)
    local b = {name = r[1], first = tonumber(r[1], 16), count = c1 * 256 + c2, value = value}
    if n >= b.first + b.count then return nil end
    return b
end

local function delete_block(name)
    redis.call('HDEL', K.blocks, name, name .. '#')
    redis.call('ZREM', K.blockidx, name)
end

-- Moves the records of block b's messages that are still in it to cold and deletes b: those
-- pending and never delivered (one delivered and pending again, after a nack, a lapsed lease,
-- a release or a requeue, has its own record in msg). It writes at most ~1 KB more than it
-- frees, and mostly far less (design.md, Blocks).
local function dissolve_block(b)
    local ids = seq_keys(b.first, b.count)
    local scores = redis.call('ZMSCORE', K.pending, unpack(ids))
    local pending, at = {}, {}
    for k = 1, b.count do
        if scores[k] then pending[#pending + 1], at[#at + 1] = ids[k], k - 1 end
    end
    local hset = {}
    if #pending > 0 then
        local in_msg = redis.call('HMGET', K.msg, unpack(pending))
        for i = 1, #pending do
            if not in_msg[i] then
                hset[#hset + 1] = pending[i]
                hset[#hset + 1] = block_record(b.value, at[i])
            end
        end
    end
    if #hset > 0 then redis.call('HSET', K.cold, unpack(hset)) end
    delete_block(b.name)
end

-- Counts messages out of their blocks: departed maps a block's name to {b = the block as
-- find_block gave it, k = how many of its messages left pending (delivered, dead-lettered or
-- cancelled)}. A block goes with its last message, or is dissolved (see BLOCK_DISSOLVE); the
-- messages that left must be out of pending already.
local function leave_blocks(departed)
    for name, d in pairs(departed) do
        local pending = redis.call('HINCRBY', K.blocks, name .. '#', -d.k)
        if pending <= 0 then
            delete_block(name)
        elseif pending * BLOCK_DISSOLVE <= d.b.count
            or pending * BLOCK_PIN_BYTES < #d.b.value then
            dissolve_block(d.b)
        end
    end
end

-- The record of an id and where it is: msg, cold, or (with the block, see find_block) blocks
-- for a message still pending in a block. nil when there is none.
local function find_record(id)
    local rec = redis.call('HGET', K.msg, id)
    if rec then return rec, K.msg end
    rec = redis.call('HGET', K.cold, id)
    if rec then return rec, K.cold end
    if is_seq_key(id) then
        local b = find_block(tonumber(id, 16))
        -- A block keeps the records of messages that left it until its last leaves: only a
        -- message still pending has its record there.
        if b and redis.call('ZSCORE', K.pending, id) then
            return block_record(b.value, tonumber(id, 16) - b.first), K.blocks, b
        end
    end
    return nil, nil
end

-- The records of ids (an array with false for none), looked up in msg, then cold, then blocks;
-- and for the indexes whose record came from cold, true, or from a block, the block as
-- find_block gave it (nil when none did). The ids must be pending members' or the block records may be stale ones.
local function find_records(ids)
    local recs = redis.call('HMGET', K.msg, unpack(ids))
    local missing = {}
    for i = 1, #ids do
        if not recs[i] then missing[#missing + 1] = i end
    end
    if #missing == 0 then return recs, nil end
    local where = nil
    if redis.call('EXISTS', K.cold) == 1 then
        local names = {}
        for k, i in ipairs(missing) do names[k] = ids[i] end
        local cold, left = redis.call('HMGET', K.cold, unpack(names)), {}
        for k, i in ipairs(missing) do
            if cold[k] then
                recs[i] = cold[k]
                where = where or {}
                where[i] = true
            else
                left[#left + 1] = i
            end
        end
        missing = left
    end
    if #missing == 0 or redis.call('EXISTS', K.blockidx) == 0 then return recs, where end
    -- Due order is mostly send order, so consecutive ids mostly share the block just read.
    local b = nil
    for _, i in ipairs(missing) do
        local id = ids[i]
        if is_seq_key(id) then
            local n = tonumber(id, 16)
            if not (b and n >= b.first and n < b.first + b.count) then b = find_block(n) end
            if b then
                recs[i] = block_record(b.value, n - b.first)
                where = where or {}
                where[i] = b
            end
        end
    end
    return recs, where
end

-- A record has one of three shapes, told apart by how many values it packs:
--   8: attempts, max, expire, token, due, member, reason, payload (after a first delivery)
--   4: max, expire, member, payload (never delivered; a caller id or an expiry)
--   2: max, payload (never delivered, generated id, no expiry)
-- A message that was never delivered needs none of the rest, and the short shapes keep a small
-- message's record in a smaller allocator size class (24 instead of 40 bytes for 16 bytes of
-- payload). The due field is only meaningful once the message left pending: while pending, its
-- score is the due time, so reschedule and send need not touch the record.
-- While a message is leased, its record is the shape it had in pending followed by a lease
-- tail of three values: attempt, token as a sequence key, due time as decimal digits (so 5, 7
-- or 11 values). fetch appends the tail by concatenation, from parts cached per call: packing
-- the whole record again with cmsgpack.pack was a sixth of a fetch. Every way a lease ends
-- rewrites the record in a shape without a tail (token 0), or deletes it.
-- The eight fields of a record, whatever its shape, as values: for loops that must not pay for a
-- table per message.
local function fields(rec)
    local a, b, c, d, e, f, g, h, i, j, k = cmsgpack.unpack(rec)
    if k ~= nil then return i, b, c, tonumber(j, 16), tonumber(k), f, g, h end
    if h ~= nil then return a, b, c, d, e, f, g, h end
    if g ~= nil then return e, a, b, tonumber(f, 16), tonumber(g), c, '', d end
    if e ~= nil then return c, a, 0, tonumber(d, 16), tonumber(e), '', '', b end
    if c == nil then return 0, a, 0, 0, 0, '', '', b end
    return 0, a, b, 0, 0, c, '', d
end

local function decode(rec)
    local a, b, c, d, e, f, g, h = fields(rec)
    return {attempts = a, max = b, expire = c, token = d, due = e, member = f, reason = g,
            payload = h}
end

local function encode(m)
    return cmsgpack.pack(m.attempts, m.max, m.expire, m.token, m.due, m.member, m.reason,
                         m.payload)
end

-- The record of a message just sent, in the shortest shape that holds it.
local function new_record(max, expire, member, payload)
    if expire == 0 and member == '' then return cmsgpack.pack(max, payload) end
    return cmsgpack.pack(max, expire, member, payload)
end

local function member_of(id, m)
    if m.member == '' then return id end
    return m.member
end

-- The record of a zset member, or nil when the member is an orphan: no record, or (after data
-- loss and a reused caller id) a record that belongs to another message.
local function record_of(member, rec)
    if not rec then return nil end
    local m = decode(rec)
    if member_of(id_of(member), m) ~= member then return nil end
    return m
end

-- The due time of a message: its pending score while pending, else the one its record kept.
local function due_of(member, m)
    if m.token == 0 then
        local score = redis.call('ZSCORE', K.pending, member)
        if score then return tonumber(score) end
    end
    return m.due
end

-- Parses a non-negative integer argument; nil when it is not one.
local function uint(s)
    local n = tonumber(s)
    if n == nil or n < 0 or n ~= math.floor(n) or n > MAX_MS then return nil end
    return n
end

local function bad_argument()
    -- A fixed text: user data never goes into an error reply.
    return redis.error_reply('ERR delayq: bad script argument')
end

-- A delay that passed the client's checks can still land after MAX_MS once added to the
-- server's now; only the server can tell, and it says so.
local function due_too_late()
    return redis.error_reply('ERR delayq: the due time would fall after the year 9999')
end

-- The lowest score of a zset (the next due time, or the next lease deadline), or nil.
local function head_score(zset)
    local h = redis.call('ZRANGE', zset, '0', '0', 'WITHSCORES')
    if h[2] then return tonumber(h[2]) end
    return nil
end

local function head_due()
    return head_score(K.pending)
end

-- Wakes sleeping consumers when a message became due earlier than everything they wait for.
-- When the head is already due, consumers are busy fetching and need no signal.
local function wake_if_earlier(head, due, now)
    if head == nil or (head > now and due < head) then
        redis.call('SPUBLISH', K.wake, str(due))
    end
end

-- Moves a message to the dead-letter set, keeping its record for inspection and requeue.
local function bury(id, m, member, now, reason, err_text, events)
    m.token = 0
    m.reason = reason
    redis.call('HSET', K.msg, id, encode(m))
    redis.call('ZADD', K.dead, str(now), member)
    if err_text then redis.call('HSET', K.err, id, err_text) end
    redis.call('HINCRBY', K.stats, 'dead_lettered', '1')
    if reason == 'expired' then redis.call('HINCRBY', K.stats, 'expired', '1') end
    if events then
        events[#events + 1] = id
        events[#events + 1] = reason
        events[#events + 1] = m.attempts
    end
end

-- Deletes members of a zset and their records; an orphan member (see record_of) goes alone, so
-- that a record reusing its id survives. Returns how many real messages were deleted.
local function delete_members(zset, members)
    if #members == 0 then return 0 end
    redis.call('ZREM', zset, unpack(members))
    local deleted, orphans = 0, 0
    for _, member in ipairs(members) do
        local id = id_of(member)
        if record_of(member, redis.call('HGET', K.msg, id)) then
            redis.call('HDEL', K.msg, id)
            redis.call('HDEL', K.err, id)
            deleted = deleted + 1
        else
            orphans = orphans + 1
        end
    end
    if orphans > 0 then redis.call('HINCRBY', K.stats, 'orphans_removed', orphans) end
    return deleted
end

-- Retention of the dead-letter set: by age, then by count; 0 disables a bound. Bounded per call;
-- every removal is counted in stats.dead_trimmed.
-- `size` is the set's size when the caller has read it already.
local function trim_dead(now, max_count, max_age_ms, size)
    size = size or redis.call('ZCARD', K.dead)
    if size == 0 then return end
    local victims = {}
    if max_age_ms > 0 then
        local cutoff = str(now - max_age_ms)
        victims = redis.call('ZRANGEBYSCORE', K.dead, '-inf', cutoff, 'LIMIT', '0', TRIM)
    end
    if #victims == 0 and max_count > 0 then
        local excess = size - max_count
        if excess > 0 then
            victims = redis.call('ZRANGE', K.dead, '0', math.min(excess, TRIM) - 1)
        end
    end
    local trimmed = delete_members(K.dead, victims)
    if trimmed > 0 then redis.call('HINCRBY', K.stats, 'dead_trimmed', trimmed) end
end
-- The dead letters named in ARGV[2..] (ids not dead are skipped), or without names the oldest
-- `limit` of them.
local function dead_members(limit)
    if #ARGV == 1 then return redis.call('ZRANGE', K.dead, '0', limit - 1) end
    local members, seen = {}, {}
    for i = 2, #ARGV do
        local rec = redis.call('HGET', K.msg, ARGV[i])
        if rec and not seen[ARGV[i]] then
            seen[ARGV[i]] = true
            local member = member_of(ARGV[i], decode(rec))
            if redis.call('ZSCORE', K.dead, member) then members[#members + 1] = member end
        end
    end
    return members
end
-- End of shared helpers.
