-- The queue's settings, in KEYS[11] (see lib/keys.lua), with their defaults.
-- @include lib/constants.lua
-- @include lib/keys.lua
-- @include lib/layout.lua

-- The queue's settings, stored in KEYS[11] so that every client of the queue agrees on them, and
-- their defaults. max_attempts applies to messages sent without their own (their record keeps 0,
-- so a change applies to messages not yet out of attempts); the backoff to nacks without a
-- delay; the retention bounds to the dead-letter set (0 disables one); paused stops fetch from
-- leasing anything (sends go on). Their defaults are in read_settings.
local SETTINGS = {'max_attempts', 'backoff_initial_ms', 'backoff_max_ms', 'backoff_multiplier',
                  'backoff_jitter', 'dead_max_count', 'dead_max_age_ms', 'paused'}

-- The queue's settings, defaults filled in, with the sequence counter (seq: the stored text, or
-- false when there is none; see take_seq); or nil and the layout error. `writes`: the caller may
-- write records (see layout_error). The table is the same one every call: in the function
-- library the top level runs once, so a call fills the fields of a table that has them instead
-- of making a table and its twelve keys anew (new table keys were a tenth of an idle fetch, and
-- the garbage another tenth, callgrind). Every call sets every field (false, never nil, for
-- what is absent), so nothing of another queue's call survives; a caller reading the settings
-- again sees the new values in the same table.
local S = {}
local function read_settings(writes)
    local v = redis.call('HMGET', K.settings, 'layout', 'seq', unpack(SETTINGS))
    local err = layout_error(v[1], writes)
    if err then return nil, err end
    S.layout, S.seq = v[1], v[2]
    S.max_attempts = tonumber(v[3]) or DEFAULT_MAX_ATTEMPTS
    S.backoff_initial_ms = tonumber(v[4]) or DEFAULT_BACKOFF_INITIAL_MS
    S.backoff_max_ms = tonumber(v[5]) or DEFAULT_BACKOFF_MAX_MS
    S.backoff_multiplier = tonumber(v[6]) or DEFAULT_BACKOFF_MULTIPLIER
    S.backoff_jitter = tonumber(v[7]) or DEFAULT_BACKOFF_JITTER
    S.dead_max_count = tonumber(v[8]) or DEFAULT_DEAD_MAX_COUNT
    S.dead_max_age_ms = tonumber(v[9]) or DEFAULT_DEAD_MAX_AGE_MS
    S.paused = tonumber(v[10]) or 0
    return S
end

-- A message's max attempts: its own, or with 0 in its record the queue's setting.
local function max_of(max, settings)
    if max == 0 then return settings.max_attempts end
    return max
end

-- The backoff delay (ms) before retry `attempts` + 1, from the queue's settings: initial x
-- multiplier^(attempts - 1), capped, spread by +-jitter. The clock's microseconds are random
-- enough to keep the retries of many messages apart.
local function backoff_ms(settings, attempts, now_us)
    local base = math.min(settings.backoff_initial_ms
        * settings.backoff_multiplier ^ (math.max(attempts, 1) - 1), settings.backoff_max_ms)
    local spread = 1 + settings.backoff_jitter * (2 * (now_us % 1000000) / 1000000 - 1)
    return math.max(0, math.min(math.floor(base * spread + 0.5), settings.backoff_max_ms))
end
