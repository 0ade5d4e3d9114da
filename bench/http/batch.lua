-- Batch send: BATCH (env DELAYQ_BENCH_BATCH, default 1000) 16-byte messages per request,
-- POST /v1/queues/{queue}/messages/batch. Messages per second = requests per second * BATCH.
-- Each message has the delay DELAYQ_BENCH_DELAY (default "24h", as delayq-bench's `batch`;
-- "0ms" sends them due at once, as its `batch_near` keeps them: a record each).
package.path = debug.getinfo(1, "S").source:match("@(.*/)") .. "?.lua;" .. package.path
local common = require("common")
local batch = tonumber(os.getenv("DELAYQ_BENCH_BATCH") or "1000")
local delay = os.getenv("DELAYQ_BENCH_DELAY") or "24h"
local req

function init()
    local parts = {}
    local message = '{"payload":"0123456789abcdef","delay":"' .. delay .. '"}'
    for i = 1, batch do parts[i] = message end
    req = common.post("/messages/batch", '{"messages":[' .. table.concat(parts, ",") .. ']}')
end

function request()
    return req
end
