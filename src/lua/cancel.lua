#!lua flags=allow-oom
-- cancel: deletes a message that is pending or ready. A message in flight or dead-lettered is
-- left as it is and its state reported. allow-oom: it only frees memory.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: 1 id (an id no message may have, see validate_id, is refused)
-- Errors: 'ERR delayq: bad script argument'.
-- Returns: 'cancelled' | 'not_found' | 'in_flight' | 'dead'
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/record.lua
-- @include lib/find.lua
-- @include lib/blocks.lua
-- @include lib/layout.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

local id = ARGV[1]
if #ARGV ~= 1 or not is_id(id) then return bad_argument() end
local layout_err = check_layout(true)
if layout_err then return layout_err end
local rec, hash, block = find_record(id)
if not rec then return 'not_found' end
local m = decode(rec)
if m.token ~= 0 then return 'in_flight' end
if redis.call('ZREM', K.pending, member_of(id, m)) == 0 then return 'dead' end
if block then
    leave_blocks({[block.name] = {b = block, k = 1}})
else
    redis.call('HDEL', hash, id)
end
redis.call('HDEL', K.err, id)
redis.call('HINCRBY', K.stats, 'cancelled', '1')
return 'cancelled'
