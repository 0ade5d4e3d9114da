#!lua flags=allow-oom
-- dead_purge: deletes dead letters and every trace of them. allow-oom: it only frees memory.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: 1 limit (1..MAX_BATCH), then the ids (at most limit); without ids, the oldest `limit`
--   dead letters. An id no message may have (see validate_id) is refused.
-- Returns: {purged, dead_left}
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/dead.lua
-- @include lib/layout.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

local limit = uint(ARGV[1])
if limit == nil or limit < 1 or limit > MAX_BATCH or #ARGV - 1 > limit then
    return bad_argument()
end
for i = 2, #ARGV do
    if not is_id(ARGV[i]) then return bad_argument() end
end
local layout_err = check_layout(true)
if layout_err then return layout_err end
local purged = delete_members(K.dead, dead_members({unpack(ARGV, 2)}, limit))
if purged > 0 then redis.call('HINCRBY', K.stats, 'purged', purged) end
return {purged, redis.call('ZCARD', K.dead)}
