#!lua flags=no-writes
-- schedule_poll: what a scheduler reads of a queue: the schedules whose claim is due, with what
-- it needs to compute their occurrences, and when the next claim falls due.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: 1 limit: at most this many schedules (1..MAX_BATCH)
-- Returns: {now_ms, next_claim_ms (the earliest claim after now, -1 for none), then per
--   schedule due: name, the spec values (lib/schedule.lua's SCHEDULE_SPEC order, payload as ''),
--   claim_at (when its claim fell due), anchor, next}
-- Errors: 'ERR delayq: bad script argument'.
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/layout.lua
-- @include lib/schedule.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

local limit = uint(ARGV[1])
if #ARGV ~= 1 or limit == nil or limit < 1 or limit > MAX_BATCH then return bad_argument() end
local layout_err = check_layout()
if layout_err then return layout_err end
local now = clock()
local out = {now, -1}
local later = redis.call('ZRANGEBYSCORE', K.schedclaims, '(' .. str(now), '+inf', 'WITHSCORES',
                        'LIMIT', '0', '1')
if later[2] then out[2] = tonumber(later[2]) end
local due = redis.call('ZRANGEBYSCORE', K.schedclaims, '-inf', str(now), 'WITHSCORES', 'LIMIT',
                      '0', str(limit))
for i = 1, #due, 2 do
    local name = due[i]
    local s = schedule_read(name)
    if s then
        out[#out + 1] = name
        s.payload = ''
        schedule_spec_values(s, out)
        out[#out + 1] = tonumber(due[i + 1])
        out[#out + 1] = s.anchor
        out[#out + 1] = s.next
    end
end
return out
