#!/bin/bash
# What GET /v1/overview costs Redis on a server with 1000 queues (docs/http.md, Queues): Redis
# CPU and commands over 30 reads a second apart, after a first read that starts recording.
# usage: bench/overview_cost.sh [path/to/delayq]   (run from the repository root)
set -e
D=$(realpath "${1:-build-test/cli/delayq}")
W=$(mktemp -d)
cd "$W"
PORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
redis-server --port $PORT --bind 127.0.0.1 --save '' --appendonly no --dir "$W" --daemonize yes --pidfile "$W/r.pid"
sleep 0.5
U=redis://127.0.0.1:$PORT
for i in $(seq -w 1 1000); do $D --redis $U send q$i "hello" >/dev/null; done
HP=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
$D --redis $U serve --listen 127.0.0.1:$HP --no-pushers --no-schedulers > serve.log 2>&1 &
SP=$!
sleep 2
curl -s -o first.json http://127.0.0.1:$HP/v1/overview
sleep 2
redis-cli -p $PORT config resetstat >/dev/null
c0=$(redis-cli -p $PORT info cpu | awk -F: '/used_cpu_(sys|user):/{s+=$2} END{print s}')
for k in $(seq 1 30); do curl -s -o /dev/null http://127.0.0.1:$HP/v1/overview; sleep 1; done
c1=$(redis-cli -p $PORT info cpu | awk -F: '/used_cpu_(sys|user):/{s+=$2} END{print s}')
redis-cli -p $PORT info commandstats > stats.txt
redis-cli -p $PORT info stats | grep total_commands_processed
grep -E 'cmdstat_(fcall|fcall_ro|evalsha):' stats.txt
echo "cpu seconds over 30 polls: $c0 -> $c1"
python3 -c "import json;d=json.load(open('first.json'));q=d['queues'];print(len(q),d['truncated'],sum(1 for x in q if x['recording']))"
curl -s http://127.0.0.1:$HP/v1/overview | python3 -c "import json,sys;d=json.load(sys.stdin);q=d['queues'];print(sum(1 for x in q if x['hour']))"
kill $SP; redis-cli -p $PORT shutdown nosave >/dev/null 2>&1 || true
