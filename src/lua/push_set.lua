#!lua
-- push_set: sets a queue's push target: what every role may read in the push hash, the header
-- values and secrets in the write-only key. The same target again writes nothing.
-- KEYS: the queue's keys (lib/keys.lua), then the write-only key (KEYS[17]).
-- ARGV: 1 url, 2 method ('POST' | 'PUT' | 'PATCH'), 3 content type, 4 request timeout (ms),
--       5 max in flight, 6 rate (requests per second, 0: none), 7 header count n, then n pairs
--       of name and value, then the secret count m, then m secrets. The client validated them
--       (validate_push_target); the script checks their shape and bounds: printable ASCII
--       (a header value may be empty and hold tabs), the lengths of shared_constants.txt, rate
--       as std::to_chars writes it (no hex, nan or inf).
-- Returns: {status, now_ms}: status 'created' | 'updated' | 'unchanged'.
-- Errors: 'ERR delayq: bad script argument'; nothing is written then.
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/layout.lua
-- @include lib/push.lua

if not bind_keys(KEYS, 17) then return bad_argument() end

local url, method, ctype = ARGV[1], ARGV[2], ARGV[3]
local timeout, in_flight, rate = uint(ARGV[4]), uint(ARGV[5]), decimal(ARGV[6])
local n = uint(ARGV[7])
if not printable(url, MAX_PUSH_URL_BYTES, true)
    or (method ~= 'POST' and method ~= 'PUT' and method ~= 'PATCH')
    or not printable(ctype, MAX_PUSH_HEADER_BYTES, true)
    or timeout == nil or timeout < MIN_PUSH_REQUEST_TIMEOUT_MS
    or timeout > MAX_PUSH_REQUEST_TIMEOUT_MS or in_flight == nil or in_flight < 1
    or in_flight > MAX_PUSH_IN_FLIGHT or rate == nil or rate < 0
    or rate > MAX_PUSH_RATE or n == nil or n > MAX_PUSH_HEADERS then
    return bad_argument()
end
local m = uint(ARGV[8 + 2 * n])
if m == nil or m > MAX_PUSH_SECRETS or #ARGV ~= 8 + 2 * n + m then return bad_argument() end
local names, values, secrets = {}, {}, {}
for i = 1, n do
    names[i], values[i] = ARGV[6 + 2 * i], ARGV[7 + 2 * i]
    -- A value may be empty and hold tabs (an HTTP field value); a name is a token.
    if not printable(names[i], MAX_PUSH_HEADER_BYTES, true) or names[i]:find(' ')
        or #names[i] + #values[i] > MAX_PUSH_HEADER_BYTES or values[i]:find('[^\t -~]') then
        return bad_argument()
    end
end
for i = 1, m do
    secrets[i] = ARGV[8 + 2 * n + i]
    if not printable(secrets[i], MAX_PUSH_HEADER_BYTES, true) then return bad_argument() end
end
local layout_err = check_layout(true)
if layout_err then return layout_err end

local fields = {url, method, ctype, str(timeout), str(in_flight), exact_str(rate),
    cmsgpack.pack(names), str(m)}
local secret = cmsgpack.pack(values, secrets)
local now = clock()
-- The stored target's fields but `updated`, in the order of `fields`.
local stored = redis.call('HMGET', K.push, unpack(PUSH_FIELDS, 1, PUSH_SET_FIELDS - 1))
local status = stored[1] and 'unchanged' or 'created'
if status == 'unchanged' then
    for i = 1, #fields do
        if stored[i] ~= fields[i] then status = 'updated' end
    end
    if redis.call('GET', K.pushsecret) ~= secret then status = 'updated' end
end
if status == 'unchanged' then return {status, now} end
fields[PUSH_SET_FIELDS] = str(now)  -- 'updated'
local hset = {}
for i = 1, PUSH_SET_FIELDS do
    hset[2 * i - 1], hset[2 * i] = PUSH_FIELDS[i], fields[i]
end
redis.call('HSET', K.push, unpack(hset))
-- A changed rate starts from a full bucket.
redis.call('HDEL', K.push, 'tokens', 'tokens_at')
redis.call('SET', K.pushsecret, secret)
return {status, now}
