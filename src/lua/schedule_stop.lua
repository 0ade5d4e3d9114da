#!lua flags=allow-oom
-- schedule_stop: pauses or removes a schedule; either cancels the occurrence it sent ahead while
-- that is still scheduled. allow-oom: it only frees memory (a pause rewrites one record of the
-- same size).
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: 1 'pause' | 'remove', 2 name (a name no schedule may have is refused)
-- Returns: {status, schedules left in the queue}: status 'paused' | 'removed' | 'not_found'.
-- Errors: 'ERR delayq: bad script argument'; nothing is written then.
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/layout.lua
-- @include lib/schedule.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

local mode, name = ARGV[1], ARGV[2]
if #ARGV ~= 2 or (mode ~= 'pause' and mode ~= 'remove') or not is_schedule_name(name) then
    return bad_argument()
end
local layout_err = check_layout(true)
if layout_err then return layout_err end
local s = schedule_read(name)
if not s then return {'not_found', redis.call('HLEN', K.schedules)} end
local now = clock()
cancel_ahead(s, now)
if mode == 'remove' then
    redis.call('HDEL', K.schedules, name)
    redis.call('ZREM', K.schedclaims, name)
    return {'removed', redis.call('HLEN', K.schedules)}
end
if s.paused == 0 then
    s.paused, s.updated = 1, now
    schedule_write(name, s)
    schedule_claim_at(name, s)
end
return {'paused', redis.call('HLEN', K.schedules)}
