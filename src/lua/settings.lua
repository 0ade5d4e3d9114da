#!lua flags=allow-oom
-- settings: reads the queue's settings, after changing those named. allow-oom: an operator must
-- be able to pause a queue, or tighten its retention, in a full Redis.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: pairs of a setting's name (SETTINGS in lib/settings.lua) and its new value; none only
--   reads.
--   max_attempts 1..MAX_ATTEMPTS; backoff_initial_ms and backoff_max_ms 0..MAX_TIME_MS (ms);
--   backoff_multiplier 1..MAX_BACKOFF_MULTIPLIER; backoff_jitter 0..1 (a fraction);
--   dead_max_count 0..MAX_DEAD_COUNT and
--   dead_max_age_ms 0..MAX_TIME_MS (0 = unbounded); paused 0 or 1. Integers in decimal digits,
--   the two fractions as std::to_chars writes them (an exponent allowed; no hex, nan or inf).
-- Errors: 'ERR delayq: bad script argument'; nothing is written then.
-- Returns: {layout ('' when the queue has none yet), then name, value pairs of every setting
--   (values as strings, defaults filled in)}
-- A resume (paused 1 -> 0) signals the wake channel, so that sleeping consumers fetch at once.
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/settings.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

local LIMITS = {
    max_attempts = {1, MAX_ATTEMPTS}, backoff_initial_ms = {0, MAX_TIME_MS},
    backoff_max_ms = {0, MAX_TIME_MS}, backoff_multiplier = {1, MAX_BACKOFF_MULTIPLIER}, backoff_jitter = {0, 1},
    dead_max_count = {0, MAX_DEAD_COUNT}, dead_max_age_ms = {0, MAX_TIME_MS}, paused = {0, 1},
}
local INTEGER = {max_attempts = true, backoff_initial_ms = true, backoff_max_ms = true,
                 dead_max_count = true, dead_max_age_ms = true, paused = true}
if #ARGV % 2 ~= 0 then return bad_argument() end
for i = 1, #ARGV, 2 do
    local limit, v = LIMITS[ARGV[i]], nil
    if INTEGER[ARGV[i]] then v = uint(ARGV[i + 1]) else v = decimal(ARGV[i + 1]) end
    if not limit or v == nil or v < limit[1] or v > limit[2] then
        return bad_argument()
    end
end
local settings, layout_err = read_settings()
if not settings then return layout_err end
if #ARGV > 0 then
    local was_paused = settings.paused == 1
    redis.call('HSET', K.settings, unpack(ARGV))
    if not settings.layout then redis.call('HSET', K.settings, 'layout', LAYOUT) end
    settings = read_settings()
    if was_paused and settings.paused == 0 then
        redis.call('SPUBLISH', K.wake, str(clock()))
    end
end
local out = {settings.layout or ''}
for _, name in ipairs(SETTINGS) do
    out[#out + 1] = name
    out[#out + 1] = exact_str(settings[name])
end
return out
