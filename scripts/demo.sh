#!/usr/bin/env bash
# The main job: installs what is missing, builds delayq, and runs `delayq demo`: an order-timeout
# scenario that shows each event with how late it was and ends with a summary. Without
# DELAYQ_REDIS_URL it uses the redis-server that delayq manages itself (a unix socket in
# ~/.local/share/delayq, appendonly, noeviction).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DDELAYQ_BUILD_TESTS=OFF -DDELAYQ_BUILD_BENCH=OFF >/dev/null
cmake --build build -j2
exec build/cli/delayq demo
