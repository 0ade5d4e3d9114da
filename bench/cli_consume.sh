#!/usr/bin/env bash
# Times `delayq consume` printing to a pipe (and to a file): a queue filled with N ready
# messages (16-byte payloads, sent with `delayq send --file`), then
#   delayq consume q --max N | cat > /dev/null
# timed from start to exit, RUNS times; prints each run and the median in messages per second.
# usage: bench/cli_consume.sh DELAYQ [N [RUNS]]      (defaults: 100000 messages, 5 runs)
# e.g.:  bench/cli_consume.sh build-bench/cli/delayq
# Starts its own redis-server (from PATH) on a free loopback port, as delayq-bench does.
set -euo pipefail

delayq=$(realpath "${1:?usage: bench/cli_consume.sh DELAYQ [N [RUNS]]}")
n=${2:-100000}
runs=${3:-5}
tmp=$(mktemp -d)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" \
    --daemonize yes --pidfile "$tmp/redis.pid" --logfile "$tmp/redis.log"
trap 'kill "$(cat "$tmp/redis.pid")" 2>/dev/null; rm -rf "$tmp"' EXIT
export DELAYQ_REDIS_URL="redis://127.0.0.1:$port"
until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.05; done

for ((i = 0; i < n; i++)); do printf '{"payload":"message %08d"}\n' "$i"; done >"$tmp/messages.jsonl"

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

measure() {  # $1: pipe or file
    local rates=()
    for ((r = 1; r <= runs; r++)); do
        "$delayq" send q --file "$tmp/messages.jsonl" >/dev/null
        local start end
        start=$(date +%s.%N)
        if [[ $1 == pipe ]]; then
            "$delayq" consume q --max "$n" | cat >/dev/null
        else
            "$delayq" consume q --max "$n" >"$tmp/out.jsonl"
        fi
        end=$(date +%s.%N)
        local left
        left=$("$delayq" stats q --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["total"])')
        [[ $left == 0 ]] || { echo "cli_consume.sh: $left messages left after a run" >&2; exit 1; }
        rates+=("$(awk -v n="$n" -v s="$start" -v e="$end" 'BEGIN {printf "%.0f", n / (e - s)}')")
        echo "consume to a $1, run $r: ${rates[-1]} msg/s" >&2
    done
    echo "consume to a $1: median $(printf '%s\n' "${rates[@]}" | median) msg/s over $runs runs" \
        "($n messages each)"
}

measure pipe
measure file
