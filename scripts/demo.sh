#!/usr/bin/env bash
# The main job: installs what is missing, builds delayq, and runs the example that sends
# messages with different delays and prints each as it is delivered, with how late it was.
# Without DELAYQ_REDIS_URL it starts a throwaway redis-server on a unix socket in a temp dir.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DDELAYQ_BUILD_TESTS=OFF >/dev/null
cmake --build build -j2
url="${DELAYQ_REDIS_URL:-}"
if [[ -z "$url" ]]; then
    dir=$(mktemp -d)
    trap 'kill "$(cat "$dir/redis.pid")" 2>/dev/null || true; rm -rf "$dir"' EXIT
    redis-server --port 0 --unixsocket "$dir/redis.sock" --dir "$dir" --save '' \
        --appendonly yes --maxmemory-policy noeviction --daemonize yes \
        --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
    for _ in $(seq 50); do [[ -S "$dir/redis.sock" ]] && break; sleep 0.1; done
    url="unix://$dir/redis.sock"
fi
build/examples/delayq_example_delays "$url"
