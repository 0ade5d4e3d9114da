-- The queue's delivery lateness histogram (KEYS[12] lateness, see lib/keys.lua): how long after
-- its due time each delivery happened, on the Redis clock, counted by every fetch whoever the
-- consumer is, so that the figure covers all consumers and survives their restarts.
-- Fields: each bucket's upper bound in ms (inclusive; '+Inf' for the last) -> deliveries in that
-- bucket alone (not cumulative: one increment per bucket a call touches), and 'sum_ms' -> the
-- sum of all lateness in ms. Readers add the buckets up for Prometheus' cumulative form.
-- @include lib/keys.lua
-- @include lib/util.lua

-- Upper bounds in ms: fine where a healthy queue delivers (a few ms), coarse up to half an hour,
-- where a stopped consumer or a paused queue puts it.
local LATENESS_BOUNDS = {0, 1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000,
                         30000, 60000, 300000, 1800000}
local LATENESS_FIELDS = {}
for b, bound in ipairs(LATENESS_BOUNDS) do LATENESS_FIELDS[b] = tostring(bound) end
LATENESS_FIELDS[#LATENESS_BOUNDS + 1] = '+Inf'

-- The field of the bucket a lateness (ms, >= 0) falls in.
local function lateness_field(ms)
    for b, bound in ipairs(LATENESS_BOUNDS) do
        if ms <= bound then return LATENESS_FIELDS[b] end
    end
    return LATENESS_FIELDS[#LATENESS_FIELDS]
end

-- Per-call totals, written once by lateness_write.
local function lateness_new()
    return {counts = {}, sum = 0}
end

-- Counts n deliveries that were ms late.
local function lateness_add(acc, ms, n)
    if ms < 0 then ms = 0 end  -- a due time in the future is never leased; 0 for safety
    local field = lateness_field(ms)
    acc.counts[field] = (acc.counts[field] or 0) + n
    acc.sum = acc.sum + ms * n
end

-- One HINCRBY per bucket the call touched, and one for the sum.
local function lateness_write(acc)
    for field, n in pairs(acc.counts) do
        redis.call('HINCRBY', K.lateness, field, tostring(n))
    end
    if acc.sum > 0 then redis.call('HINCRBY', K.lateness, 'sum_ms', str(acc.sum)) end
end
