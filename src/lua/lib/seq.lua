-- Sequence numbers and their keys: generated ids, delivery tokens, the prefix of zset members.
-- @include lib/constants.lua
-- @include lib/keys.lua
-- @include lib/util.lua

-- Fixed-width lowercase hex: byte order is numeric order, and SEQ_LEN (14) digits hold every
-- integer a Lua number represents exactly (2^53). One C call: a base62 loop in Lua cost 6x as
-- much.
local SEQ_FORMAT = '%0' .. SEQ_LEN .. 'x'
local function seq_key(n)
    return string.format(SEQ_FORMAT, n)
end

-- Every two-digit hex number in order: "00" at 1, "01" at 3, ..., "ff" at 511.
local HEX_PAIRS = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f404142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f707172737475767778797a7b7c7d7e7f808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e9fa0a1a2a3a4a5a6a7a8a9aaabacadaeafb0b1b2b3b4b5b6b7b8b9babbbcbdbebfc0c1c2c3c4c5c6c7c8c9cacbcccdcecfd0d1d2d3d4d5d6d7d8d9dadbdcdddedfe0e1e2e3e4e5e6e7e8e9eaebecedeeeff0f1f2f3f4f5f6f7f8f9fafbfcfdfeff'

-- The sequence keys of n consecutive numbers from first. A string.format per key was a tenth
-- of the cost of a batch send; this formats once per 256 keys and appends two digits.
local SEQ_PREFIX_FORMAT = '%0' .. (SEQ_LEN - 2) .. 'x'
local function seq_keys(first, n)
    local keys, prefix, block = {}, nil, -1
    for i = 1, n do
        local s = first + i - 1
        local b = math.floor(s / 256)
        if b ~= block then
            block, prefix = b, string.format(SEQ_PREFIX_FORMAT, b)
        end
        local lo = (s - b * 256) * 2 + 1
        keys[i] = prefix .. HEX_PAIRS:sub(lo, lo + 1)
    end
    return keys
end

-- Reserves count consecutive sequence numbers and returns the first. `stored` is the counter's
-- field 'seq' of the settings hash as the caller read it with the layout (false or nil when
-- there is none), so the whole reservation costs one HSET. The counter never falls behind the
-- server's microsecond clock, so a counter that was lost or rolled back with Redis's data (a
-- failover, an fsync window) does not hand out numbers again: not as ids, not as tokens.
local function take_seq(count, stored, now_us)
    local last = stored and tonumber(stored) or 0
    if last < now_us then last = now_us end
    last = last + count
    redis.call('HSET', K.settings, 'seq', str(last))
    return last - count + 1
end

-- The id of a zset member (see lib/keys.lua).
local function id_of(member)
    if #member == SEQ_LEN then return member end
    return member:sub(SEQ_LEN + 1)
end

-- Whether an id has a generated id's form, a sequence key: SEQ_LEN lowercase hex digits.
local function is_seq_key(id)
    return #id == SEQ_LEN and not id:find('[^0-9a-f]')
end
