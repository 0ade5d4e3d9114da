-- Blocks: the records of a far-future run of generated ids, one hash field per run (design.md,
-- Blocks). A block's value: the count c of its records (2 bytes, big-endian), c end offsets (2
-- bytes each, from the start of the records), then the records as the client built them: max and
-- payload, without the due time, which is the pending score (see lib/record.lua).
-- @include lib/keys.lua
-- @include lib/util.lua
-- @include lib/seq.lua

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

-- The value of a block holding records rs[from..to].
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
