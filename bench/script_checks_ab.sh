#!/bin/bash
# The cost of the scripts' argument checks (docs/benchmarks.md): delayq-bench --mode enqueue with
# the scripts of BEFORE (default ee944bf, before the checks) and of HEAD, alternated 3 times, in
# build-bench (Release). Leaves src/lua as HEAD has it.
set -e
cd "$(dirname "$0")/.."
BEFORE=${1:-ee944bf}
run() { ./build-bench/bench/delayq-bench --mode enqueue --engine functions 2>&1 | grep -E "^enqueue " | sed "s/^/$1 /"; }
for i in 1 2 3; do
  git checkout -q HEAD -- src/lua && cmake --build build-bench --target delayq-bench -j2 >/dev/null && run new
  git checkout -q "$BEFORE" -- src/lua && cmake --build build-bench --target delayq-bench -j2 >/dev/null && run old
done
git checkout -q HEAD -- src/lua && cmake --build build-bench --target delayq-bench -j2 >/dev/null
git status --short src/lua
