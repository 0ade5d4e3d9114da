#!/usr/bin/env bash
# Installs what is missing, builds delayq with warnings as errors under AddressSanitizer and
# UBSan, checks formatting and clang-tidy, and runs the whole test suite (real redis-server processes that
# the tests start themselves on free loopback ports).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh test
# Unity build: sources compiled in batches of 8 (DELAYQ_UNITY_BUILD), which parse and instantiate
# the heavy headers once a batch: a fresh build takes a fraction of the CPU time.
cmake -S . -B build-test -G Ninja -DCMAKE_BUILD_TYPE=Debug -DDELAYQ_SANITIZE=ON \
    -DDELAYQ_WERROR=ON -DDELAYQ_UNITY_BUILD=ON >/dev/null
cmake --build build-test -j2
git ls-files '*.cpp' '*.hpp' | xargs clang-format --dry-run --Werror
git ls-files 'src/*.cpp' 'examples/*.cpp' | xargs -P2 -n4 clang-tidy -p build-test --quiet 2>/dev/null
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-test --output-on-failure -j2 --timeout 300
