# Sourced by the HTTP benchmarks (bench/http.sh, bench/http/server_cpu.sh): a redis-server of
# their own and `delayq serve` with a token (an auth file, as in production), on free loopback
# ports (never 6379) with a temporary directory, both stopped at exit.
# Needs $delayq (the binary); takes the arrays redis_args and serve_args (extra flags), if set.
# Sets tmp, redis_port, http_port, url, serve_pid, and exports DELAYQ_REDIS_URL and DELAYQ_TOKEN.
tmp=$(mktemp -d)
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
redis_port=$(free_port)
http_port=$(free_port)
serve_pid=
cleanup() {
    [[ -n $serve_pid ]] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
    kill "$(cat "$tmp/redis.pid")" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" \
    "${redis_args[@]}" --daemonize yes --pidfile "$tmp/redis.pid" --logfile "$tmp/redis.log"
until redis-cli -p "$redis_port" ping >/dev/null 2>&1; do sleep 0.05; done
export DELAYQ_REDIS_URL="redis://127.0.0.1:$redis_port"

DELAYQ_TOKEN=$("$delayq" token new --name bench --scopes send,consume,read --queues '*' \
    --auth-file "$tmp/auth" 2>/dev/null)
export DELAYQ_TOKEN
# The access log (one line a request on stderr) is part of what the server does per request.
"$delayq" serve --listen "127.0.0.1:$http_port" --auth-file "$tmp/auth" "${serve_args[@]}" \
    2>"$tmp/serve.log" &
serve_pid=$!
until grep -q 'listening on' "$tmp/serve.log"; do sleep 0.05; done
url="http://127.0.0.1:$http_port"
