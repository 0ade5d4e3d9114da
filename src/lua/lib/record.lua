-- The record codec: a message's record in msg, cold or a block.
-- @include lib/keys.lua
-- @include lib/seq.lua

-- A record packs its due time first, then one of three shapes, told apart by how many values
-- it packs:
--   8: due, attempts, max, expire, token, member, reason, payload (after a first delivery)
--   5: due, max, expire, member, payload (never delivered; a caller id or an expiry)
--   3: due, max, payload (never delivered, generated id, no expiry)
-- A message that was never delivered needs none of the rest, and the short shapes keep a small
-- message's record in a smaller allocator size class. The due time is the message's: while it
-- is pending, its pending score, which every script that moves the score writes here too; once
-- it left pending, the due time it had there (lateness, release, get). fetch reads it from the
-- record it reads anyway: taking scores WITHSCORES cost Redis a "%.17g" and Lua a strtod per
-- message, a tenth of a fetch of messages with their own due times.
-- The due time is packed as msgpack's uint 64 (0xcf and 8 bytes) whatever its size, so that a
-- record's first byte tells this layout's records from those without a due time: the records
-- layout 1 wrote, and block records (lib/blocks.lua), which the client builds without one.
-- Those start with max or attempts, a msgpack positive fixint or a uint of at most 32 bits
-- (max_attempts is at most MAX_ATTEMPTS), and their due time is their pending score.
-- While a message is leased, its record is the shape it had in pending followed by its token
-- as a sequence key (4, 6 or 9 values): fetch appends it by concatenation, as packing the
-- whole record again was a sixth of a fetch. The attempt is the record's attempts + 1. Every way
-- a lease ends rewrites the record in a shape without a token, or deletes it.
-- Records without a due time (layout 1's, blocks'): 2 (max, payload), 4 (max, expire, member,
-- payload), 8 (attempts, max, expire, token, due, member, reason, payload; its due is the one
-- the message had when it left pending), and layout 1's leased shapes: 5, 7 or 11 values, the
-- pending shape followed by attempt, token, due as decimal digits. A layout-2 script reads them
-- all and writes its own shapes (see `dated`).
local DUE_TAG = 0xcf

-- The 9 bytes of a due time as a record's first value: msgpack's uint 64, big-endian (what
-- cmsgpack.pack writes for a due time from 1970-02-19 on). One C call: building the bytes in Lua
-- cost a send of messages with their own due times 8,500 instructions per message (callgrind).
local function due_bytes(due)
    return struct.pack('>BI8', DUE_TAG, due)
end

-- due_bytes(due) .. rest, in one C call and one Lua string instead of two.
local function with_due(due, rest)
    return struct.pack('>BI8c0', DUE_TAG, due, rest)
end

local function has_due(rec)
    return rec:byte(1) == DUE_TAG
end

-- The fields of a record without a due time (see above), then whether its due is exact: for a
-- record that may be pending, only its score is.
local function undated_fields(rec)
    local a, b, c, d, e, f, g, h, i, j, k = cmsgpack.unpack(rec)
    if k ~= nil then return i, b, c, tonumber(j, 16), tonumber(k), f, g, h, true end
    if h ~= nil then return a, b, c, d, e, f, g, h, d ~= 0 end
    if g ~= nil then return e, a, b, tonumber(f, 16), tonumber(g), c, '', d, true end
    if e ~= nil then return c, a, 0, tonumber(d, 16), tonumber(e), '', '', b, true end
    if c == nil then return 0, a, 0, 0, 0, '', '', b, false end
    return 0, a, b, 0, 0, c, '', d, false
end

-- The fields of a record, whatever its shape, as values: attempts, max, expire, token, due,
-- member, reason, payload, and whether the due time is exact (false only for a record without
-- one that may be pending: its score is its due time). For loops that must not pay for a table
-- per message.
local function fields(rec)
    if not has_due(rec) then return undated_fields(rec) end
    local d, a, b, c, e, f, g, h, i = cmsgpack.unpack(rec)
    if i ~= nil then return a + 1, b, c, tonumber(i, 16), d, f, g, h, true end
    if h ~= nil then return a, b, c, e, d, f, g, h, true end
    if f ~= nil then return 1, a, b, tonumber(f, 16), d, c, '', e, true end
    if e ~= nil then return 0, a, b, 0, d, c, '', e, true end
    if c ~= nil then return 1, a, 0, tonumber(c, 16), d, '', '', b, true end
    return 0, a, 0, 0, d, '', '', b, true
end

local function decode(rec)
    local a, b, c, d, e, f, g, h, exact = fields(rec)
    return {attempts = a, max = b, expire = c, token = d, due = e, member = f, reason = g,
            payload = h, exact = exact}
end

-- The 8-value shape; m.due must be exact.
local function encode(m)
    return with_due(m.due, cmsgpack.pack(m.attempts, m.max, m.expire, m.token, m.member, m.reason,
                                         m.payload))
end

-- The record of a pending message, rewritten with due time `due`, in this layout's shapes:
-- what a script that moves a pending message's score writes (a record without a due time gains
-- one).
local function dated(rec, due)
    if has_due(rec) then return due_bytes(due) .. rec:sub(10) end
    local _, _, c, d, e = cmsgpack.unpack(rec)
    -- Layout 1's pending shapes are this layout's without the due time.
    if c == nil or (d ~= nil and e == nil) then return with_due(due, rec) end
    local m = decode(rec)
    m.due = due
    return encode(m)
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

-- The due time of a message: the one its record holds, or its pending score where that is not
-- exact.
local function due_of(member, m)
    if not m.exact then
        local score = redis.call('ZSCORE', K.pending, member)
        if score then return tonumber(score) end
    end
    return m.due
end
