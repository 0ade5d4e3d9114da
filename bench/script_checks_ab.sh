#!/bin/bash
# The cost of the scripts' argument checks (docs/benchmarks.md): the scripts of each revision
# given (default: ee944bf, before the checks, and HEAD), built into build-bench (Release) in
# turn, ROUNDS times (default 3) alternated, each measured two ways:
#   enqueue: `delayq-bench --mode enqueue --engine functions`, Redis CPU per message of each
#            variant. single_async's calls carry as many messages as the client grouped while
#            the one before was in flight (~30), a number that moves with the server's speed
#            and the machine's load, so msgs/call is shown beside it.
#   calls:   send calls of a fixed shape pipelined at a redis-server of its own (FCALL of the
#            revision's function library; usec_per_call of INFO commandstats): one message due
#            in a day, 30 such, 1000 such, one with a caller id, and 1000 each with its own
#            delay (batch_spread's shape). No grouping to move them.
#            Then the same calls, fewer of them, at a redis-server under callgrind (when
#            valgrind is installed): instructions inside FCALL per call, which the machine's
#            load does not move (`Ir`, `-` without valgrind), and of those the call's Lua
#            (`Lua Ir`: less the commands it runs, whose cost varies between runs).
# Prints each run, then the medians per revision and their ratio to the first revision's.
# Usage: [ROUNDS=3] [MODES="enqueue calls"] bash bench/script_checks_ab.sh [REV...]
#        (no REV: ee944bf against HEAD; one REV: it against HEAD)
# Leaves src/lua as HEAD has it; refuses to run with uncommitted changes there.
set -e
cd "$(dirname "$0")/.."
revs=("$@")
[ ${#revs[@]} -eq 0 ] && revs=(ee944bf)
[ ${#revs[@]} -eq 1 ] && revs+=(HEAD)
ROUNDS=${ROUNDS:-3}
MODES=${MODES:-enqueue calls}
if ! git diff --quiet HEAD -- src/lua; then
    echo "src/lua has uncommitted changes, which this script would overwrite" >&2
    exit 1
fi
for r in "${revs[@]}"; do git rev-parse -q --verify "$r^{commit}" >/dev/null; done
out=$(mktemp -d)
build() {
    git checkout -q "$1" -- src/lua
    cmake --build build-bench --target delayq-bench -j2 >/dev/null
}
enqueue() {
    ./build-bench/bench/delayq-bench --mode enqueue --engine functions 2>&1 |
        grep '^{"mode":"enqueue"' | jq -c --arg rev "$1" \
            '{rev: $rev, variant, us: .redis_cpu_us_per_msg, per_call: .msgs_per_call, msgs_s: .msgs_per_s}' |
        tee -a "$out/enqueue.jsonl" |
        jq -r '"enqueue \(.rev) \(.variant) \(.us) µs/msg, \(.per_call) msgs/call, \(.msgs_s) msgs/s"'
}
calls() {
    python3 - "$1" build-bench/src/generated/scripts.cpp <<'EOF' | tee -a "$out/calls.jsonl" |
import glob, json, os, re, shutil, socket, subprocess, sys, tempfile, time

rev, generated = sys.argv[1], sys.argv[2]
use_callgrind = shutil.which('valgrind') is not None
library = re.search(r'kLibrary\{"([^"]+)", R"lua\((.*?)\)lua"\}', open(generated).read(), re.S)
name, code = library.group(1), library.group(2).encode()

def resp(*args):
    parts = [b'*%d\r\n' % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        parts.append(b'$%d\r\n%s\r\n' % (len(a), a))
    return b''.join(parts)

class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(('127.0.0.1', port))
        self.buf = b''
    def line(self):
        while b'\r\n' not in self.buf:
            self.buf += self.s.recv(1 << 16)
        line, self.buf = self.buf.split(b'\r\n', 1)
        return line
    def reply(self):
        line = self.line()
        t, rest = line[:1], line[1:]
        if t == b'-':
            raise RuntimeError(rest.decode())
        if t in (b'+', b':'):
            return rest
        if t == b'$':
            n = int(rest)
            if n < 0:
                return None
            while len(self.buf) < n + 2:
                self.buf += self.s.recv(1 << 16)
            data, self.buf = self.buf[:n], self.buf[n + 2:]
            return data
        if t == b'*':
            return [self.reply() for _ in range(max(int(rest), 0))]
        raise RuntimeError('unexpected reply ' + repr(line))
    def call(self, *args):
        self.s.sendall(resp(*args))
        return self.reply()

def measure(callgrind):
    """Per shape: FCALL's usec_per_call, or with callgrind its instructions per call."""
    with socket.socket() as probe:
        probe.bind(('127.0.0.1', 0))
        port = probe.getsockname()[1]
    workdir = tempfile.mkdtemp()
    cmd = ['redis-server', '--port', str(port), '--bind', '127.0.0.1', '--save', '',
           '--appendonly', 'no', '--dir', workdir]
    if callgrind:
        # Only what runs inside FCALL counts: not the request parsing, FLUSHALL or INFO.
        cmd = ['valgrind', '--tool=callgrind', '--collect-atstart=no',
               '--toggle-collect=fcallCommand', '--callgrind-out-file=' + workdir + '/cg.out'] + cmd
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = {}
    try:
        for _ in range(600):
            try:
                c = Conn(port)
                c.call('PING')
                break
            except (ConnectionRefusedError, RuntimeError):
                time.sleep(0.05)
        c.call('FUNCTION', 'LOAD', code)
        for shape, msgs, args in shapes:
            calls = max(10, (2000 if callgrind else 40000) // msgs)
            c.call('FLUSHALL')
            c.call('CONFIG', 'RESETSTAT')
            for first in range(0, calls, 100):
                batch = []
                for k in range(first, min(calls, first + 100)):
                    a = [('order-%d' % k) if v is None else v for v in args]
                    batch.append(resp('FCALL', name + '_send', len(keys), *keys, *a))
                c.s.sendall(b''.join(batch))
                for _ in batch:
                    c.reply()
            if callgrind:
                # A dump zeroes the counts: each shape's dump holds its calls only.
                subprocess.run(['callgrind_control', '--dump=' + shape, str(server.pid)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
                dumps = sorted(glob.glob(workdir + '/cg.out.*'), key=os.path.getmtime)
                ir = int(re.search(r'^(?:summary|totals): (\d+)', open(dumps[-1]).read(), re.M).group(1))
                # Less the commands the script ran (redis.call), whose cost moves from run to
                # run (ZADD's skiplist levels are random): what is left is the call's Lua.
                annotated = subprocess.run(['callgrind_annotate', '--inclusive=yes', dumps[-1]],
                                           capture_output=True, text=True, check=True).stdout
                inner = re.search(r'^\s*([\d,]+) \([^)]*\)\s+\S*:scriptCall\b', annotated, re.M)
                inner = int(inner.group(1).replace(',', '')) if inner else 0
                out[shape] = (round(ir / calls), round((ir - inner) / calls))
            else:
                stats = c.call('INFO', 'commandstats').decode()
                out[shape] = float(re.search(r'cmdstat_fcall:calls=\d+,usec=\d+,usec_per_call=([\d.]+)',
                                             stats).group(1))
    finally:
        server.terminate()
        server.wait()
    return out

suffixes = ['msg', 'pending', 'inflight', 'dead', 'err', 'stats', 'wake', 'cold', 'blocks',
            'blockidx', 'settings', 'lateness', 'schedules', 'schedclaims', 'push', 'history']
keys = ['dq:{calls}:' + s for s in suffixes]
record = b'\x00\xb0' + b'p' * 16  # max_attempts 0, then a 16-byte payload (lib/record.lua)
day = '86400000'
shapes = [('one', 1, ['1', '0', '', day, '0', '0', record]),
          ('thirty', 30, ['30', '0', '', day, '0', '0'] + [record] * 30),
          ('thousand', 1000, ['1000', '0', '', day, '0', '0'] + [record] * 1000),
          ('one_caller_id', 1, ['1', '1', '', day, '0', '0', None, b'p' * 16]),
          # batch_spread's shape: each message preceded by its own delay, a uint each.
          ('thousand_own_delays', 1000,
           ['1000', '0', '', '*', '0', '0'] + [v for k in range(1000) for v in (str(5000 + k), record)])]
usec = measure(False)
ir = measure(True) if use_callgrind else {}
for shape, msgs, _ in shapes:
    all_ir, lua_ir = ir.get(shape, (None, None))
    print(json.dumps({'rev': rev, 'shape': shape, 'us_call': usec[shape],
                      'us_msg': round(usec[shape] / msgs, 4), 'ir_call': all_ir,
                      'lua_ir_call': lua_ir, 'lua_ir_msg': lua_ir // msgs if lua_ir else None}))
EOF
        jq -r '"calls \(.rev) \(.shape) \(.us_call) µs/call, \(.us_msg) µs/msg, Ir/call \(.ir_call // "-"), Lua Ir/call \(.lua_ir_call // "-"), Lua Ir/msg \(.lua_ir_msg // "-")"'
}
for _ in $(seq "$ROUNDS"); do
    for r in "${revs[@]}"; do
        build "$r"
        for m in $MODES; do "$m" "$r"; done
    done
done
build HEAD
git status --short src/lua

echo
touch "$out/enqueue.jsonl" "$out/calls.jsonl"
python3 - "${revs[0]}" "$out/enqueue.jsonl" "$out/calls.jsonl" <<'EOF'
import collections, json, statistics, sys

base = sys.argv[1]
print("medians of each revision's runs; (xN): ratio to %s's median" % base)
def table(path, group, fields):
    rows = [json.loads(line) for line in open(path)]
    by = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in rows:
        by[r[group]][r['rev']].append(r)
    for g, revs in by.items():
        for rev, runs in revs.items():
            parts = []
            for field, unit, ratio in fields:
                values = [r[field] for r in runs if r[field] is not None]
                if not values:
                    continue
                m = statistics.median(values)
                text = ('%d %s' if m >= 10000 else '%g %s') % (m, unit)
                base_values = [r[field] for r in revs.get(base, []) if r[field] is not None]
                if ratio and base_values:
                    text += ' (x%.3f)' % (m / statistics.median(base_values))
                parts.append(text)
            print('%-19s %-8s %s' % (g, rev, ', '.join(parts)))
table(sys.argv[2], 'variant', [('us', 'µs/msg', True), ('per_call', 'msgs/call', False),
                               ('msgs_s', 'msgs/s', False)])
table(sys.argv[3], 'shape', [('us_call', 'µs/call', True), ('us_msg', 'µs/msg', False),
                             ('ir_call', 'Ir/call', True), ('lua_ir_call', 'Lua Ir/call', True),
                             ('lua_ir_msg', 'Lua Ir/msg', False)])
EOF
echo "raw: $out"
