-- Single send: one 16-byte message per request, POST /v1/queues/{queue}/messages.
-- wrk -s bench/http/send.lua -c64 -t2 -d10s http://127.0.0.1:PORT   (see bench/http.sh)
package.path = debug.getinfo(1, "S").source:match("@(.*/)") .. "?.lua;" .. package.path
local common = require("common")
local body = '{"payload":"0123456789abcdef"}'
local req

function init()
    req = common.post("/messages", body)
end

function request()
    return req
end
