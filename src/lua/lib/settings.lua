-- The queue's settings, in KEYS[11] (see lib/keys.lua), with their defaults.
-- @include lib/constants.lua
-- @include lib/keys.lua
-- @include lib/layout.lua

-- The queue's settings, stored in KEYS[11] so that every client of the queue agrees on them, and
-- their defaults. max_attempts applies to messages sent without their own (their record keeps 0,
-- so a change applies to messages not yet out of attempts); the backoff to nacks without a
-- delay; the retention bounds to the dead-letter set (0 disables one); paused stops fetch from
-- leasing anything (sends go on). Their defaults are in SETTING_DEFAULTS (and read_settings,
-- which fills them in without a loop: the two lists and SETTINGS name the same eight).
local SETTINGS = {'max_attempts', 'backoff_initial_ms', 'backoff_max_ms', 'backoff_multiplier',
                  'backoff_jitter', 'dead_max_count', 'dead_max_age_ms', 'paused'}

-- Each setting's default, by name: also which fields of the settings hash are settings.
local SETTING_DEFAULTS = {
    max_attempts = DEFAULT_MAX_ATTEMPTS, backoff_initial_ms = DEFAULT_BACKOFF_INITIAL_MS,
    backoff_max_ms = DEFAULT_BACKOFF_MAX_MS, backoff_multiplier = DEFAULT_BACKOFF_MULTIPLIER,
    backoff_jitter = DEFAULT_BACKOFF_JITTER, dead_max_count = DEFAULT_DEAD_MAX_COUNT,
    dead_max_age_ms = DEFAULT_DEAD_MAX_AGE_MS, paused = 0,
}

-- The queue's settings, defaults filled in, with the sequence counter (seq: the stored text, or
-- false when there is none; see take_seq); or nil and the layout error. `writes`: the caller may
-- write records (see layout_error). The table is the same one every call: in the function
-- library the top level runs once, so a call fills the fields of a table that has them instead
-- of making a table and its twelve keys anew (new table keys were a tenth of an idle fetch, and
-- the garbage another tenth, callgrind). Every call sets every field (false, never nil, for
-- what is absent), so nothing of another queue's call survives; a caller reading the settings
-- again sees the new values in the same table.
-- One HGETALL: a queue nobody configured has only `layout` and `seq`, so Redis looks up and
-- replies two fields and Lua converts four strings, where an HMGET of every name looked up ten,
-- replied eight nils into a ten-element table and called tonumber on each (an idle fetch,
-- which reads nothing else but the clock and two heads, paid a tenth of its cost for it).
local S = {}
local function read_settings(writes)
    local v = redis.call('HGETALL', K.settings)
    local layout, seq = false, false
    S.max_attempts = DEFAULT_MAX_ATTEMPTS
    S.backoff_initial_ms = DEFAULT_BACKOFF_INITIAL_MS
    S.backoff_max_ms = DEFAULT_BACKOFF_MAX_MS
    S.backoff_multiplier = DEFAULT_BACKOFF_MULTIPLIER
    S.backoff_jitter = DEFAULT_BACKOFF_JITTER
    S.dead_max_count = DEFAULT_DEAD_MAX_COUNT
    S.dead_max_age_ms = DEFAULT_DEAD_MAX_AGE_MS
    S.paused = 0
    for i = 1, #v, 2 do
        local name = v[i]
        if name == 'layout' then
            layout = v[i + 1]
        elseif name == 'seq' then
            seq = v[i + 1]
        elseif SETTING_DEFAULTS[name] then
            -- A value that is not a number (written by hand) leaves the default, as it did.
            S[name] = tonumber(v[i + 1]) or SETTING_DEFAULTS[name]
        end
    end
    local err = layout_error(layout, writes)
    if err then return nil, err end
    S.layout, S.seq = layout, seq
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
