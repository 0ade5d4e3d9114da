#!/usr/bin/env bash
# Runs bench/pending_sim.lua on a redis-server of its own (a free loopback port, a temporary
# directory): a backlog of 1M messages due over 10 s, then 200,000 more sent at 100 per model
# millisecond while the due ones are delivered, for each pending structure; prints Redis's time
# inside the script per message sent (INFO commandstats), RUNS times alternated.
# usage: bench/pending_sim.sh [RUNS]   (default 3)
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" \
    --daemonize yes --pidfile "$dir/redis.pid" >/dev/null
trap 'redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.1; done
script=$(cat "$here/pending_sim.lua")
sim() { redis-cli -p "$port" eval "$script" 3 sim:p sim:l sim:r "$@" >/dev/null; }
run() {  # mode g
    redis-cli -p "$port" flushall >/dev/null
    sim "$1" "$2" 1000000 1000 1000 1 1
    redis-cli -p "$port" config resetstat >/dev/null
    for k in $(seq 1 10); do
        sim "$1" "$2" $((1000000 + (k - 1) * 200)) 200 100 $((k + 10)) 0
    done
    redis-cli -p "$port" info commandstats | tr -d '\r' |
        sed -n 's/^cmdstat_eval:.*usec=\([0-9]*\),.*/\1/p' |
        awk -v m="$1" -v g="$2" '{printf "%-6s g=%-4s %.2f us per message\n", m, g, $1 / 200000}'
}
for _ in $(seq 1 "$runs"); do
    run exact 1
    run bucket 100
    run bucket 1000
    run ring 1000
done
