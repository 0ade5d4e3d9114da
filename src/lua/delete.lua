#!lua flags=allow-oom
-- delete: removes every key of the queue (the wake channel is not a key), its schedules and push
-- target too. Refused while messages are in flight unless forced: an operator deleting a queue
-- under running consumers most likely meant another queue. allow-oom: it only frees memory.
-- KEYS: the queue's keys (lib/keys.lua), then the write-only key (KEYS[17]): the push target's
--   credentials go with the queue.
-- ARGV: 1 force: '0' or '1' (forced, it also deletes a queue of another layout version)
-- Returns: {'deleted', pending, in_flight, dead} (the messages deleted) | {'in_flight', in_flight}
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/layout.lua

if not bind_keys(KEYS, 17) then return bad_argument() end

local force = ARGV[1]
if #ARGV ~= 1 or (force ~= '0' and force ~= '1') then return bad_argument() end
if force == '0' then
    local layout_err = check_layout(true)
    if layout_err then return layout_err end
end
local in_flight = redis.call('ZCARD', K.inflight)
if in_flight > 0 and force == '0' then return {'in_flight', in_flight} end
local pending, dead = redis.call('ZCARD', K.pending), redis.call('ZCARD', K.dead)
-- UNLINK frees large values in the background instead of blocking Redis for them.
redis.call('UNLINK', K.msg, K.pending, K.inflight, K.dead, K.err, K.stats, K.cold,
           K.blocks, K.blockidx, K.settings, K.lateness, K.schedules, K.schedclaims, K.push,
           K.history, K.pushsecret)
return {'deleted', pending, in_flight, dead}
