-- Lease + ack in batches: each connection leases up to MAX (env DELAYQ_BENCH_MAX, default 1000)
-- messages, then acks what it got in one request, and again. The queue must hold enough ready
-- messages for the run (bench/http.sh fills it first). Prints the acked messages per second.
package.path = debug.getinfo(1, "S").source:match("@(.*/)") .. "?.lua;" .. package.path
local common = require("common")
local max = tonumber(os.getenv("DELAYQ_BENCH_MAX") or "1000")
local threads = {}
local lease_req
local pending = {}   -- ack bodies not yet sent, one per answered lease request
acked, lost, empty, failed = 0, 0, 0, 0

function setup(thread)
    table.insert(threads, thread)
end

function init()
    lease_req = common.post("/leases", '{"max":' .. max .. ',"visibility":"60s"}')
end

-- A connection that has an ack to send sends it; otherwise it leases. Connections of one thread
-- share the list, which keeps every connection busy.
function request()
    local body = table.remove(pending)
    if body then return common.post("/ack", body) end
    return lease_req
end

function response(status, headers, body)
    if status ~= 200 then
        failed = failed + 1
        return
    end
    if body:find('"deliveries"', 1, true) then
        local leases = {}
        for lease in body:gmatch('"lease":"([^"]+)"') do leases[#leases + 1] = '"' .. lease .. '"' end
        if #leases == 0 then
            empty = empty + 1
        else
            pending[#pending + 1] = '{"leases":[' .. table.concat(leases, ",") .. ']}'
        end
    else
        for _ in body:gmatch('"status":"ok"') do acked = acked + 1 end
        for _ in body:gmatch('"status":"lease_lost"') do lost = lost + 1 end
    end
end

function done(summary, latency, requests)
    local a, l, e, f = 0, 0, 0, 0
    for _, t in ipairs(threads) do
        a = a + t:get("acked")
        l = l + t:get("lost")
        e = e + t:get("empty")
        f = f + t:get("failed")
    end
    local seconds = summary.duration / 1e6
    io.write(string.format("acked %d in %.2f s: %.0f msg/s; lease_lost %d, empty leases %d, " ..
                           "failed requests %d\n", a, seconds, a / seconds, l, e, f))
end
