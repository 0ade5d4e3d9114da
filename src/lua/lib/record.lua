-- The record codec: a message's record in msg, cold or a block.
-- @include lib/keys.lua
-- @include lib/seq.lua

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
