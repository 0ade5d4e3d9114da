-- Shared by the wrk scripts: the queue, the token (DELAYQ_TOKEN, when the server has an auth
-- file) and a JSON POST.
local M = {}
M.queue = os.getenv("DELAYQ_BENCH_QUEUE") or "bench"
M.headers = {["Content-Type"] = "application/json"}
local token = os.getenv("DELAYQ_TOKEN")
if token and token ~= "" then M.headers["Authorization"] = "Bearer " .. token end

function M.post(path, body)
    return wrk.format("POST", "/v1/queues/" .. M.queue .. path, M.headers, body)
end

-- Counts answers whose status is not the expected one, so that a run with errors says so.
function M.count_unexpected(expected)
    unexpected = 0
    return function(status)
        if status ~= expected then unexpected = unexpected + 1 end
    end
end

return M
