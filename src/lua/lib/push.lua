-- A queue's push target (delayq/push.hpp): what every role may read of it in KEYS[15], and the
-- rate limit's tokens, on the Redis clock.
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua

-- The fields of the push hash a reading role gets, in push_get's reply order: the target as
-- push_set writes it (the first PUSH_SET_FIELDS, `updated` last; header_names is a cmsgpack
-- array), then the last answer push_record keeps. The hash also holds the rate limit's tokens
-- and tokens_at (push_lease).
local PUSH_FIELDS = {'url', 'method', 'ctype', 'timeout_ms', 'in_flight_max', 'rate',
    'header_names', 'secrets', 'updated', 'last_at', 'last_status', 'last_error'}
local PUSH_SET_FIELDS = 9

-- The target as push_get answers it: PUSH_FIELDS, header_names unpacked into an array, last_at
-- -1 for none; nil when the queue has no target.
local function push_public()
    local v = redis.call('HMGET', K.push, unpack(PUSH_FIELDS))
    if not v[1] then return nil end
    v[7] = cmsgpack.unpack(v[7])
    v[10] = v[10] or '-1'
    v[11] = v[11] or '0'
    v[12] = v[12] or ''
    return v
end

-- The rate limit's tokens at `now` (rate > 0): the bucket holds a second's worth (at least
-- one), starts full (tokens nil) and refills continuously from tokens_at.
local function push_tokens(rate, tokens, tokens_at, now)
    local size = math.max(1, rate)
    if tokens == nil then
        tokens = size
    else
        tokens = math.min(size, tokens + (now - tokens_at) * rate / 1000)
    end
    return tokens
end
