-- Finding a message's record: in msg, then cold, then blocks (see lib/keys.lua).
-- @include lib/keys.lua
-- @include lib/seq.lua
-- @include lib/blocks.lua

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
-- find_block gave it (nil when none did). The ids must be pending members' or the block
-- records may be stale ones.
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
