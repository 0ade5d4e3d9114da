-- Leases: the inflight member of a delivery, its token as a sequence key followed by the id.
-- @include lib/constants.lua
-- @include lib/seq.lua

local function lease_of(token, id)
    return seq_key(token) .. id
end

local function lease_id(lease)
    return lease:sub(SEQ_LEN + 1)
end
