#!/usr/bin/env bash
# HTTP benchmarks of `delayq serve` with wrk (Debian package wrk): Redis, the server and the load
# generator on the same machine, with a token (an auth file) as in production.
#   batch send   wrk -c8,  POST .../messages/batch of 1000 16-byte messages due in a day,
#                as delayq-bench's batch figure (msg/s); and the same due at once (batch_near's
#                storage: a record each)
#   lease + ack  wrk -c8,  lease up to 1000, ack them in one request, repeat   (acked msg/s)
#   single send  wrk -c64, POST .../messages, one 16-byte message             (msg/s)
# RUNS times each (a fresh Redis database for every run), then the median of each.
# usage: bench/http.sh DELAYQ [RUNS [SECONDS]]     (defaults: 5 runs of 10 s)
# e.g.:  bench/http.sh build-bench/cli/delayq
# Long-poll lateness and idle long-polls: bench/http/longpoll.py (run by this script at the end).
set -euo pipefail

delayq=$(realpath "${1:?usage: bench/http.sh DELAYQ [RUNS [SECONDS]]}")
runs=${2:-5}
seconds=${3:-10}
here=$(cd "$(dirname "$0")" && pwd)
redis_args=(--enable-debug-command local)
serve_args=(--max-connections 12000 --max-polls-per-token 12000)
# shellcheck source=bench/http/serve_up.sh
source "$here/http/serve_up.sh"

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
# wrk's "Requests/sec:" line, failing the run on any non-2xx answer or socket error.
requests_per_second() {
    local out=$1
    if grep -qE 'Non-2xx|Socket errors' <<<"$out"; then
        echo "http.sh: errors in the run:" >&2
        echo "$out" >&2
        exit 1
    fi
    awk '/^Requests\/sec:/ {print $2}' <<<"$out"
}

# After a load that made Redis's tables double, every command also meets the half-moved old
# table until accesses finish moving it, a bucket or more each: a transient, not the steady
# state. Lease + ack is measured after lookups have finished it, as delayq-bench's backlog mode
# does (without: lease + ack ran 93k-112k msg/s, median 99k, with Redis rehashing a third of
# its time).
queue=${DELAYQ_BENCH_QUEUE:-bench}
settle_rehash() {
    local key command size
    for key in "dq:{$queue}:msg" "dq:{$queue}:pending"; do
        command=HEXISTS
        [[ $key == *:pending ]] && command=ZSCORE
        # The old table's size while Redis rehashes the key's table, else 0.
        while size=$(redis-cli -p "$redis_port" debug htstats-key "$key" |
            awk '/table size:/ && !s {s = $3} /rehashing target/ {r = 1} END {print r ? s : 0}') &&
            ((size > 0)); do
            awk -v n="$size" -v c="$command" -v k="$key" 'BEGIN {
                line = sprintf("*3\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$1\r\nx\r\n", length(c), c, length(k), k)
                for (i = 0; i < n; i++) printf "%s", line }' |
                redis-cli -p "$redis_port" --pipe >/dev/null
        done
    done
}

batch=() batch_now=() lease=() single=()
for ((r = 1; r <= runs; r++)); do
    redis-cli -p "$redis_port" flushall >/dev/null
    out=$(wrk -t2 -c8 -d"${seconds}s" -s "$here/http/batch.lua" "$url")
    batch+=("$(awk -v r="$(requests_per_second "$out")" 'BEGIN {printf "%.0f", r * 1000}')")
    echo "run $r: batch send ${batch[-1]} msg/s" >&2
    redis-cli -p "$redis_port" flushall >/dev/null
    out=$(DELAYQ_BENCH_DELAY=0ms wrk -t2 -c8 -d"${seconds}s" -s "$here/http/batch.lua" "$url")
    batch_now+=("$(awk -v r="$(requests_per_second "$out")" 'BEGIN {printf "%.0f", r * 1000}')")
    echo "run $r: batch send due at once ${batch_now[-1]} msg/s" >&2
    started=$SECONDS
    settle_rehash
    echo "run $r: Redis's rehash finished in $((SECONDS - started)) s" >&2
    out=$(wrk -t2 -c8 -d"${seconds}s" -s "$here/http/lease_ack.lua" "$url")
    grep -q 'failed requests 0$' <<<"$out" || { echo "$out" >&2; exit 1; }
    lease+=("$(sed -n 's/^acked [0-9]* in [0-9.]* s: \([0-9]*\) msg\/s.*/\1/p' <<<"$out")")
    echo "run $r: lease + ack ${lease[-1]} msg/s ($(grep '^acked' <<<"$out"))" >&2
    redis-cli -p "$redis_port" flushall >/dev/null
    out=$(wrk -t2 -c64 -d"${seconds}s" -s "$here/http/send.lua" "$url")
    single+=("$(requests_per_second "$out" | awk '{printf "%.0f", $1}')")
    echo "run $r: single send ${single[-1]} msg/s" >&2
done
echo "single send, 64 connections: median $(printf '%s\n' "${single[@]}" | median) msg/s over $runs runs"
echo "batch send (1000 a request, due in a day), 8 connections: median $(printf '%s\n' "${batch[@]}" | median) msg/s"
echo "batch send (1000 a request, due at once), 8 connections: median $(printf '%s\n' "${batch_now[@]}" | median) msg/s"
echo "lease + ack (up to 1000 a request), 8 connections: median $(printf '%s\n' "${lease[@]}" | median) msg/s"

# Long-polls: lateness on a quiet server, then 10,000 idle ones held at once.
redis-cli -p "$redis_port" flushall >/dev/null
python3 "$here/http/longpoll.py" lateness "$url" --messages 5000 --rate 500
python3 "$here/http/longpoll.py" idle "$url" --serve-pid "$serve_pid" --redis-port "$redis_port" \
    --connections 10000 --window 30
