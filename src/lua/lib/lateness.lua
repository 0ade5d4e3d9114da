-- The queue's delivery lateness histogram (KEYS[12] lateness, see lib/keys.lua): how long after
-- its due time each delivery happened, on the Redis clock, counted by every fetch whoever the
-- consumer is, so that the figure covers all consumers and survives their restarts.
-- Fields: each bucket's upper bound in ms (inclusive; '+Inf' for the last) -> deliveries in that
-- bucket alone (not cumulative: one increment per bucket a call touches), and 'sum_ms' -> the
-- sum of all lateness in ms. Readers add the buckets up for Prometheus' cumulative form.
-- @include lib/keys.lua
-- @include lib/util.lua

-- Upper bounds in ms: fine where a healthy queue delivers (a few ms), coarse up to half an hour,
-- where a stopped consumer or a paused queue puts it. Both tables are literals: building the
-- field names with tostring on every call cost an idle fetch 40 % more instructions.
local LATENESS_BOUNDS = {0, 1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000,
                         30000, 60000, 300000, 1800000}
local LATENESS_FIELDS = {'0', '1', '2', '5', '10', '25', '50', '100', '250', '500', '1000',
                         '2500', '5000', '10000', '30000', '60000', '300000', '1800000', '+Inf'}

-- The bucket (an index of LATENESS_FIELDS) of a lateness in ms (>= 0), searched from bucket b.
-- Fetch leases in due order, so lateness only falls within a call, and a search from the bucket
-- found last moves a step or none: a full search per delivery was a tenth of a fetch of
-- messages that each have their own due time.
local function lateness_bucket(ms, b)
    local bounds = LATENESS_BOUNDS
    while b > 1 and ms <= bounds[b - 1] do b = b - 1 end
    while b <= #bounds and ms > bounds[b] do b = b + 1 end
    return b
end

-- One HINCRBY per bucket a call's deliveries fell in (counts: bucket -> deliveries), and one
-- for their sum.
local function lateness_write(counts, sum)
    for b, n in pairs(counts) do
        redis.call('HINCRBY', K.lateness, LATENESS_FIELDS[b], tostring(n))
    end
    if sum > 0 then redis.call('HINCRBY', K.lateness, 'sum_ms', str(sum)) end
end
