#!lua flags=allow-oom
-- dead_purge: deletes dead letters and every trace of them. allow-oom: it only frees memory.
-- KEYS: the queue's keys, see lib.lua.
-- ARGV: 1 limit (1..1000), then the ids; without ids, the oldest `limit` dead letters.
-- Returns: {purged, dead_left}
local limit = uint(ARGV[1])
if limit == nil or limit < 1 or limit > 1000 or #ARGV - 1 > limit then return bad_argument() end
local layout_err = check_layout()
if layout_err then return layout_err end
local purged = delete_members(K.dead, dead_members(limit))
if purged > 0 then redis.call('HINCRBY', K.stats, 'purged', purged) end
return {purged, redis.call('ZCARD', K.dead)}
