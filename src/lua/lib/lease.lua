-- Leases: the inflight member of a delivery, its token as a sequence key followed by the id.
-- @include lib/constants.lua
-- @include lib/seq.lua
-- @include lib/util.lua

local function lease_of(token, id)
    return seq_key(token) .. id
end

local function lease_id(lease)
    return lease:sub(SEQ_LEN + 1)
end

-- Whether a text has a lease's form (as the client's parse_lease reads one): a token of SEQ_LEN
-- lowercase hex digits, then a message id; the form of a pending or dead member with a caller
-- id too. Leases themselves are not refused for their form: one not held is lost.
local function is_lease(lease)
    return type(lease) == 'string' and #lease > SEQ_LEN
        and not lease:sub(1, SEQ_LEN):find('[^0-9a-f]') and is_id(lease:sub(SEQ_LEN + 1))
end
