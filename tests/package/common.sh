# Shared by the package tests: arguments, a scratch directory, a redis-server on a unix socket
# (no TCP port at all), and a check that prints what it checked.
set -euo pipefail
src=$1 build=$2 cmake=$3 cpack=$4 sanitize=${5:-}
scratch=$(mktemp -d)
redis_pid=
cleanup() {
    [[ -n $redis_pid ]] && kill "$redis_pid" 2>/dev/null && wait "$redis_pid" 2>/dev/null
    rm -rf "$scratch"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

start_redis() {
    redis-server --port 0 --unixsocket "$scratch/redis.sock" --dir "$scratch" --save '' \
        --appendonly no >"$scratch/redis.log" 2>&1 &
    redis_pid=$!
    for _ in $(seq 100); do
        [[ -S $scratch/redis.sock ]] && redis-cli -s "$scratch/redis.sock" ping >/dev/null 2>&1 &&
            return 0
        sleep 0.1
    done
    fail "redis-server did not start: $(cat "$scratch/redis.log")"
}
redis_url() { echo "unix://$scratch/redis.sock"; }

# Builds examples/ out of the tree against PREFIX with extra cmake arguments, into DIR.
build_examples() {
    local prefix=$1 dir=$2
    shift 2
    "$cmake" -S "$src/examples" -B "$dir" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_CXX_FLAGS="$sanitize" -DCMAKE_EXE_LINKER_FLAGS="$sanitize" "$@" >"$dir.log" 2>&1 ||
        fail "configuring the examples against $prefix: $(cat "$dir.log")"
    "$cmake" --build "$dir" -j2 --target delayq_example_producer delayq_example_delays \
        >>"$dir.log" 2>&1 || fail "building the examples against $prefix: $(tail -30 "$dir.log")"
}

# Sends one message with PRODUCER to a fresh queue and checks, with the delayq binary DELAYQ,
# that it is there: the library and the tool of the install agree.
check_send() {
    local producer=$1 delayq=$2 queue=$3
    local id
    id=$("$producer" "$queue" "hello" 0 "$(redis_url)") || fail "$producer failed"
    [[ -n $id ]] || fail "$producer printed no id"
    local got
    got=$("$delayq" --redis "$(redis_url)" peek "$queue" --json) || fail "delayq peek failed"
    grep -q "\"$id\"" <<<"$got" || fail "delayq peek $queue does not show $id: $got"
}

# grep -q for a pipeline's end: reads all its input, so that the writer never dies of SIGPIPE
# (which pipefail would report as a failure).
has() { grep "$@" >/dev/null; }
