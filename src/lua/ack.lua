#!lua flags=allow-oom
-- ack: deletes handled messages and every trace of them. A stale token (the lease was lost and
-- the message moved on) changes nothing: its lease is no longer in the inflight set and its
-- record no longer names its token. allow-oom: it only frees memory.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: the lease of each message (1 to MAX_BATCH): its token as a sequence key, then its id
--   (the inflight member, see lib/keys.lua). Any text is taken: one that is not a held lease is
--   lost, whatever its form (the public Lease type sends '' for a token past SEQ_LEN digits).
-- Returns: the integer n when every lease was held (all acked: the usual case, and an array of n
--   ones cost a tenth of an ack); else an array of one integer per lease: 1 acked, 0 lease lost
--   or message gone.
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/lease.lua
-- @include lib/record.lua
-- @include lib/layout.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

local n = #ARGV
if n == 0 or n > MAX_BATCH then return bad_argument() end
local layout_err = check_layout(true)
if layout_err then return layout_err end
local ids, out = {}, n
for i = 1, n do ids[i] = ARGV[i]:sub(SEQ_LEN + 1) end
-- One ZREM for the whole batch. When it removed every lease, all were held: the usual case,
-- with nothing to read (a ZMSCORE first would make Redis format a score per lease).
local removed = redis.call('ZREM', K.inflight, unpack(ARGV))
local gone = ids
if removed ~= n then
    -- Some leases were stale or named twice. A lease was held exactly when its record still
    -- names its token: every way a lease ends (ack, nack, release, the sweep) deletes the record
    -- or clears the token.
    local recs = redis.call('HMGET', K.msg, unpack(ids))
    local seen = {}
    gone, out = {}, {}
    for i = 1, n do
        local lease = ARGV[i]
        out[i] = 0
        if recs[i] and not seen[lease] then
            local _, _, _, token = fields(recs[i])
            if token ~= 0 and lease_of(token, ids[i]) == lease then
                seen[lease] = true
                out[i] = 1
                gone[#gone + 1] = ids[i]
            end
        end
    end
end
if #gone > 0 then
    redis.call('HDEL', K.msg, unpack(gone))
    -- Most messages never failed: skip converting every id for a hash that is not there.
    if redis.call('EXISTS', K.err) == 1 then redis.call('HDEL', K.err, unpack(gone)) end
    redis.call('HINCRBY', K.stats, 'acked', #gone)
end
return out
