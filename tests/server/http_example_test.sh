#!/usr/bin/env bash
# Runs examples/http/quickstart.py (the README's Python example) against `delayq serve` and a
# real redis-server: sent, delivered by a long-poll, acked, and the queue empty afterwards.
# usage: http_example_test.sh DELAYQ_BINARY QUICKSTART_PY
set -euo pipefail
delayq=$1 example=$2
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../support/serve_scratch.sh"
start_redis

"$delayq" serve --listen 127.0.0.1:0 --redis "$url" --io-threads 1 2>"$scratch/serve.log" &
pids+=($!)
port=$(port_of "$scratch/serve.log")

out=$(python3 "$example" "http://127.0.0.1:$port") || fail "the example failed: $out"
echo "$out"
grep -q "^got [0-9a-f]* 'close order 42' attempt 1$" <<<"$out" || fail "no delivery in: $out"
grep -qx "acked \['ok'\]" <<<"$out" || fail "not acked: $out"
stats=$("$delayq" --redis "$url" stats orders --json)
grep -q '"acked":1' <<<"$stats" || fail "the queue does not count one ack: $stats"
echo "ok: the Python example sent, long-polled and acked"
