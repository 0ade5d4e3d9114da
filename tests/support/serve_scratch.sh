# Sourced by the shell tests that run redis-server and `delayq serve` themselves
# (tests/server/http_example_test.sh, tests/browser/dashboard_test.sh): a scratch directory and
# the processes started in it, stopped and removed on exit; a redis-server on a unix socket in
# it; and the port a `delayq serve` listening on 127.0.0.1:0 took.
scratch=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
    rm -rf "$scratch"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Starts redis-server on $scratch/redis.sock (no TCP port, no snapshots) and sets url.
start_redis() {
    redis-server --port 0 --unixsocket "$scratch/redis.sock" --dir "$scratch" --save '' \
        >"$scratch/redis.log" 2>&1 &
    pids+=($!)
    url=unix://$scratch/redis.sock
    for _ in $(seq 100); do
        redis-cli -s "$scratch/redis.sock" ping >/dev/null 2>&1 && return
        sleep 0.1
    done
    fail "redis-server did not start: $(cat "$scratch/redis.log")"
}

# Prints the port `delayq serve` (its log in $1) listens on, once it does.
port_of() {
    local port=
    for _ in $(seq 300); do
        port=$(sed -n 's/.*listening on 127\.0\.0\.1 port \([0-9]*\).*/\1/p' "$1")
        [[ -n $port ]] && break
        sleep 0.1
    done
    [[ -n $port ]] || fail "delayq serve did not start: $(cat "$1")"
    echo "$port"
}
