#!/usr/bin/env bash
# CPU per message of `delayq serve` and of Redis under one HTTP load, from /proc/PID/stat over
# the run: a figure that a busy machine shifts far less than msg/s, for comparing two builds.
#   lease_ack  fills a queue (10 s of batch sends due at once), then bench/http/lease_ack.lua
#   batch      bench/http/batch.lua (1000 messages a request, due in a day)
#   single     bench/http/send.lua with 64 connections
# usage: bench/http/server_cpu.sh DELAYQ lease_ack|batch|single [SECONDS]
# e.g.:  for b in BEFORE AFTER BEFORE AFTER; do bench/http/server_cpu.sh $b/cli/delayq lease_ack; done
# Prints: messages/s, then µs of server CPU and of Redis CPU per message.
set -euo pipefail
delayq=$(realpath "${1:?usage: server_cpu.sh DELAYQ lease_ack|batch|single [SECONDS]}")
mode=${2:?usage: server_cpu.sh DELAYQ lease_ack|batch|single [SECONDS]}
seconds=${3:-10}
here=$(cd "$(dirname "$0")" && pwd)
redis_args=()
serve_args=()
# shellcheck source=bench/http/serve_up.sh
source "$here/serve_up.sh"

# utime + stime of a process, in clock ticks.
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
redis_pid=$(cat "$tmp/redis.pid")
if [[ $mode == lease_ack ]]; then
    DELAYQ_BENCH_DELAY=0ms wrk -t2 -c8 -d10s -s "$here/batch.lua" "$url" >/dev/null
    sleep 2  # lets Redis finish most of the rehash the fill started (bench/http.sh waits for all of it)
fi
serve0=$(ticks "$serve_pid")
redis0=$(ticks "$redis_pid")
case $mode in
lease_ack)
    out=$(wrk -t2 -c8 -d"${seconds}s" -s "$here/lease_ack.lua" "$url")
    messages=$(sed -n 's/^acked \([0-9]*\) .*/\1/p' <<<"$out")
    ;;
batch)
    out=$(wrk -t2 -c8 -d"${seconds}s" -s "$here/batch.lua" "$url")
    messages=$(awk -v s="$seconds" '/^Requests\/sec:/ {printf "%d", $2 * 1000 * s}' <<<"$out")
    ;;
single)
    out=$(wrk -t2 -c64 -d"${seconds}s" -s "$here/send.lua" "$url")
    messages=$(awk -v s="$seconds" '/^Requests\/sec:/ {printf "%d", $2 * s}' <<<"$out")
    ;;
*)
    echo "server_cpu.sh: unknown mode $mode" >&2
    exit 2
    ;;
esac
serve1=$(ticks "$serve_pid")
redis1=$(ticks "$redis_pid")
hz=$(getconf CLK_TCK)
awk -v m="$messages" -v s="$seconds" -v ds=$((serve1 - serve0)) -v dr=$((redis1 - redis0)) \
    -v hz="$hz" -v mode="$mode" 'BEGIN {
        printf "%s: %.0f msg/s; CPU per message: server %.2f us, Redis %.2f us\n",
            mode, m / s, ds / hz * 1e6 / m, dr / hz * 1e6 / m }'
