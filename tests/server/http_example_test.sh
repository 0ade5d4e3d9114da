#!/usr/bin/env bash
# Runs examples/http/quickstart.py (the README's Python example) against `delayq serve` and a
# real redis-server: sent, delivered by a long-poll, acked, and the queue empty afterwards.
# usage: http_example_test.sh DELAYQ_BINARY QUICKSTART_PY
set -euo pipefail
delayq=$1 example=$2
scratch=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
    rm -rf "$scratch"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

redis-server --port 0 --unixsocket "$scratch/redis.sock" --dir "$scratch" --save '' \
    >"$scratch/redis.log" 2>&1 &
pids+=($!)
url=unix://$scratch/redis.sock
for _ in $(seq 100); do
    redis-cli -s "$scratch/redis.sock" ping >/dev/null 2>&1 && break
    sleep 0.1
done

"$delayq" serve --listen 127.0.0.1:0 --redis "$url" --io-threads 1 2>"$scratch/serve.log" &
pids+=($!)
port=
for _ in $(seq 300); do
    port=$(sed -n 's/.*listening on 127\.0\.0\.1 port \([0-9]*\).*/\1/p' "$scratch/serve.log")
    [[ -n $port ]] && break
    sleep 0.1
done
[[ -n $port ]] || fail "delayq serve did not start: $(cat "$scratch/serve.log")"

out=$(python3 "$example" "http://127.0.0.1:$port") || fail "the example failed: $out"
echo "$out"
grep -q "^got [0-9a-f]* 'close order 42' attempt 1$" <<<"$out" || fail "no delivery in: $out"
grep -qx "acked \['ok'\]" <<<"$out" || fail "not acked: $out"
stats=$("$delayq" --redis "$url" stats orders --json)
grep -q '"acked":1' <<<"$stats" || fail "the queue does not count one ack: $stats"
echo "ok: the Python example sent, long-polled and acked"
