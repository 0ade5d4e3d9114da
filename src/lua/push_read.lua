#!lua flags=no-writes
-- push_read: the whole push target, header values and secrets included, for a pusher (the
-- pusher role may read the write-only key; no other reading role may).
-- KEYS: the queue's keys (lib/keys.lua), then the write-only key (KEYS[17]).
-- ARGV: none
-- Returns: {} when the queue has no target; else push_get's reply followed by the header
--   values (an array, in the names' order) and the secrets (an array).
-- @include lib/util.lua
-- @include lib/keys.lua
-- @include lib/layout.lua
-- @include lib/push.lua

if not bind_keys(KEYS, 17) then return bad_argument() end

if #ARGV ~= 0 or K.pushsecret == nil then return bad_argument() end
local layout_err = check_layout()
if layout_err then return layout_err end
local target = push_public()
if not target then return EMPTY end
local secret = redis.call('GET', K.pushsecret)
local values, secrets = EMPTY, EMPTY
if secret then values, secrets = cmsgpack.unpack(secret) end
target[#target + 1] = values
target[#target + 1] = secrets
return target
