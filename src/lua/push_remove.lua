#!lua flags=allow-oom
-- push_remove: removes a queue's push target, its credentials and its last answer. The queue's
-- messages stay. allow-oom: it only frees memory.
-- KEYS: the queue's keys (lib/keys.lua), then the write-only key (KEYS[17]).
-- ARGV: none
-- Returns: 1 when there was a target, else 0.
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/layout.lua

if not bind_keys(KEYS, 17) then return bad_argument() end

if #ARGV ~= 0 or K.pushsecret == nil then return bad_argument() end
local layout_err = check_layout(true)
if layout_err then return layout_err end
local existed = redis.call('EXISTS', K.push)
redis.call('UNLINK', K.push, K.pushsecret)
return existed
