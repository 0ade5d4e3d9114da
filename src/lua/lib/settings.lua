-- The queue's settings, in KEYS[11] (see lib/keys.lua), with their defaults.
-- @include lib/keys.lua
-- @include lib/layout.lua

-- The queue's settings, stored in KEYS[11] so that every client of the queue agrees on them, and
-- their defaults. max_attempts applies to messages sent without their own (their record keeps 0,
-- so a change applies to messages not yet out of attempts); the backoff to nacks without a
-- delay; the retention bounds to the dead-letter set (0 disables one); paused stops fetch from
-- leasing anything (sends go on).
local SETTINGS = {'max_attempts', 'backoff_initial_ms', 'backoff_max_ms', 'backoff_multiplier',
                  'backoff_jitter', 'dead_max_count', 'dead_max_age_ms', 'paused'}
local SETTING_DEFAULTS = {
    max_attempts = 25, backoff_initial_ms = 1000, backoff_max_ms = 3600000,
    backoff_multiplier = 2, backoff_jitter = 0.2, dead_max_count = 100000,
    dead_max_age_ms = 2592000000, paused = 0,
}

-- The queue's settings, defaults filled in, with the sequence counter (seq: the stored text, or
-- false when there is none; see take_seq); or nil and the layout error.
local function read_settings()
    local v = redis.call('HMGET', K.settings, 'layout', 'seq', unpack(SETTINGS))
    local err = layout_error(v[1])
    if err then return nil, err end
    local s = {layout = v[1], seq = v[2]}
    for i, name in ipairs(SETTINGS) do s[name] = tonumber(v[i + 2]) or SETTING_DEFAULTS[name] end
    return s
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
