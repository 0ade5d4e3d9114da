#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, docs/fuzzing.md) with clang-14 in build-fuzz and runs each
# for SECONDS (default 600), two at a time. What a run finds stays in build-fuzz/fuzz/: the
# inputs that add coverage in corpus/<target>/, a crash's input in artifacts/.
# usage: scripts/fuzz.sh [SECONDS] [TARGET-REGEX]   (scripts/test.sh runs `scripts/fuzz.sh 10`)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
only="${2:-.}"
# Only the fuzz build's own sources: the tests, examples and delayq-bench are the GCC build's.
# -O1 and line tables only: a fuzzer's speed at a fraction of -O2 -g's build time.
CXX=clang++-14 cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -gline-tables-only" -DDELAYQ_FUZZ=ON -DDELAYQ_WERROR=ON \
    -DDELAYQ_UNITY_BUILD=ON -DDELAYQ_BUILD_TESTS=OFF -DDELAYQ_BUILD_EXAMPLES=OFF \
    -DDELAYQ_BUILD_BENCH=OFF -DDELAYQ_INSTALL=OFF "-DDELAYQ_FUZZ_SECONDS=$seconds" >/dev/null
# Everything, the service and the tool included: the clang build keeps them compiling with clang.
cmake --build build-fuzz -j2
ctest --test-dir build-fuzz -L fuzz -R "fuzz\\.($only)" -j2 --output-on-failure
