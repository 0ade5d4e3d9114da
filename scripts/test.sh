#!/usr/bin/env bash
# Installs what is missing, builds delayq with warnings as errors under AddressSanitizer and
# UBSan, checks formatting and clang-tidy, and runs the whole test suite (real redis-server processes that
# the tests start themselves on free loopback ports), then every fuzz target for a few seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh test
# Unity build: sources compiled in batches of 8 (DELAYQ_UNITY_BUILD), which parse and instantiate
# the heavy headers once a batch: a fresh build takes a fraction of the CPU time.
cmake -S . -B build-test -G Ninja -DCMAKE_BUILD_TYPE=Debug -DDELAYQ_SANITIZE=ON \
    -DDELAYQ_WERROR=ON -DDELAYQ_UNITY_BUILD=ON >/dev/null
cmake --build build-test -j2
git ls-files '*.cpp' '*.hpp' | xargs clang-format --dry-run --Werror
# clang-tidy needs only the compile commands, so it runs beside the tests at the lowest priority,
# on the CPU they leave idle while they wait on Redis (about a third of two cores): run one after
# the other, the two took 8 + 11.5 minutes here.
git ls-files 'src/*.cpp' 'examples/*.cpp' |
    nice -n 19 xargs -P2 -n4 clang-tidy -p build-test --quiet >build-test/clang-tidy.log 2>/dev/null &
tidy=$!
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
tests_status=0
ctest --test-dir build-test --output-on-failure -j2 --timeout 300 || tests_status=$?
tidy_status=0
wait "$tidy" || tidy_status=$?
if [ "$tidy_status" -ne 0 ]; then
    cat build-test/clang-tidy.log
    echo "clang-tidy found problems (above)" >&2
fi
# Fuzzing (docs/fuzzing.md): a clang-14 build of the library, the service and the tool with
# libFuzzer, and each fuzz target for 10 s, two at a time; after the tests, whose CPU it would
# otherwise take. A crash's input is kept in build-fuzz/fuzz/artifacts/.
fuzz_status=0
bash scripts/fuzz.sh 10 || fuzz_status=$?
[ "$tests_status" -eq 0 ] && [ "$tidy_status" -eq 0 ] && [ "$fuzz_status" -eq 0 ]
