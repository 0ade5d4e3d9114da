-- Batch send: BATCH (env DELAYQ_BENCH_BATCH, default 1000) 16-byte messages per request,
-- POST /v1/queues/{queue}/messages/batch. Messages per second = requests per second * BATCH.
package.path = debug.getinfo(1, "S").source:match("@(.*/)") .. "?.lua;" .. package.path
local common = require("common")
local batch = tonumber(os.getenv("DELAYQ_BENCH_BATCH") or "1000")
local req

function init()
    local parts = {}
    for i = 1, batch do parts[i] = '{"payload":"0123456789abcdef"}' end
    req = common.post("/messages/batch", '{"messages":[' .. table.concat(parts, ",") .. ']}')
end

function request()
    return req
end
