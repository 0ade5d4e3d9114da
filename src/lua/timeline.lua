#!lua flags=no-writes
-- timeline: how many pending messages fall due in each of `count` buckets of `width` ms from
-- now on the Redis clock, with those already due (ready) and those due after the last bucket
-- (later). One ZCOUNT a bucket: O(count * log n), cheap on a queue of millions.
-- KEYS: the queue's keys, see lib/keys.lua.
-- ARGV: 1 width (ms, >= 1), 2 count (1..MAX_TIMELINE_BUCKETS); width * count <= MAX_TIME_MS.
-- Returns: {now_ms, ready, later, c_1, ..., c_count}: c_i counts due times in
--   (now + (i - 1) * width, now + i * width].
-- Errors: 'ERR delayq: bad script argument'.
-- @include lib/constants.lua
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/layout.lua

if not bind_keys(KEYS, 16) then return bad_argument() end

local width, count = uint(ARGV[1]), uint(ARGV[2])
if #ARGV ~= 2 or width == nil or width < 1 or count == nil or count < 1
    or count > MAX_TIMELINE_BUCKETS or width * count > MAX_TIME_MS then
    return bad_argument()
end
local layout_err = check_layout()
if layout_err then return layout_err end
local now = clock()
local out = {now, redis.call('ZCOUNT', K.pending, '-inf', str(now)), 0}
local from = now
for i = 1, count do
    local to = now + i * width
    out[3 + i] = redis.call('ZCOUNT', K.pending, '(' .. str(from), str(to))
    from = to
end
out[3] = redis.call('ZCOUNT', K.pending, '(' .. str(from), '+inf')
return out
