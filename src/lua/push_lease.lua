#!lua flags=allow-oom
-- push_lease: fetch (fetch.lua) for a pusher, within the queue's push target: its leases last
-- the request timeout plus PUSH_LEASE_MARGIN_MS, at most in_flight_max of the queue's leases
-- are out at once (a pull consumer's count too), and at most `rate` start per second (a token
-- bucket in the push hash, on the Redis clock). Every pusher of the queue shares these limits.
-- allow-oom: as fetch.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: 1 max_count (1..MAX_BATCH)
-- Returns: {now_us, next_ms, deliveries, dead_events, limited, target}: fetch's reply, then
--   limited: 1 when a limit left due messages behind (next_ms is then when room comes: the
--     next token, or the earliest lease deadline; a pusher also calls again when one of its
--     own requests ends), else 0;
--   target: 0 when the queue has no push target (nothing is leased, lapsed leases are still
--     swept), else 1.
-- Errors: 'ERR delayq: bad script argument'.
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/settings.lua
-- @include lib/fetch.lua
-- @include lib/push.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

local max_count = uint(ARGV[1])
if #ARGV ~= 1 or max_count == nil or max_count < 1 or max_count > MAX_BATCH then
    return bad_argument()
end
local now, now_us = clock()
local settings, layout_err = read_settings(true)
if not settings then return layout_err end
local t = redis.call('HMGET', K.push, 'timeout_ms', 'in_flight_max', 'rate', 'tokens',
    'tokens_at')
if not t[1] then
    local r = fetch_due(max_count, 1, settings, now, now_us, function() return 0 end)
    r[5], r[6] = 0, 0
    return r
end
local visibility = (t[1] + 0) + PUSH_LEASE_MARGIN_MS
local in_flight_max, rate = t[2] + 0, t[3] + 0
local tokens = nil
if rate > 0 then tokens = push_tokens(rate, tonumber(t[4]), tonumber(t[5]), now) end
local before, limit, bound = 0, max_count, nil
local r = fetch_due(max_count, visibility, settings, now, now_us, function()
    -- After the sweep: its lapsed leases are no longer in flight.
    before = redis.call('ZCARD', K.inflight)
    local room = math.max(0, in_flight_max - before)
    if room < limit then limit, bound = room, 'in_flight' end
    if tokens and math.floor(tokens) < limit then limit, bound = math.floor(tokens), 'rate' end
    return limit
end)
local leased = 0
if tokens then
    leased = redis.call('ZCARD', K.inflight) - before
    redis.call('HSET', K.push, 'tokens', exact_str(tokens - leased), 'tokens_at', str(now))
end
-- Left behind: more is due (the reply's next is not after now) than the limit let through.
local limited = 0
if bound and r[2] ~= -1 and r[2] <= now then
    limited = 1
    local room_at
    if bound == 'rate' then
        room_at = now + math.ceil((1 - (tokens - leased)) * 1000 / rate)
    else
        local h = redis.call('ZRANGE', K.inflight, '0', '0', 'WITHSCORES')
        room_at = h[2] and (h[2] + 0) or now
    end
    if room_at > r[2] then r[2] = room_at end
end
r[5], r[6] = limited, 1
return r
