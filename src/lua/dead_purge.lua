#!lua flags=allow-oom
-- dead_purge: deletes dead letters and every trace of them. allow-oom: it only frees memory.
-- KEYS: the queue's keys, see lib.lua.
-- ARGV: 1 limit (1..1000), then the ids; without ids, the oldest `limit` dead letters.
-- Returns: {purged, dead_left}
local limit = uint(ARGV[1])
if limit == nil or limit < 1 or limit > 1000 or #ARGV - 1 > limit then return bad_argument() end
local members = dead_members(limit)
delete_members(K.dead, members)
if #members > 0 then redis.call('HINCRBY', K.stats, 'purged', #members) end
return {#members, redis.call('ZCARD', K.dead)}
