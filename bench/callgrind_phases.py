#!/usr/bin/env python3
"""Instructions per message inside Redis for each phase of `delayq-bench --mode profile`.

Usage: bench/callgrind_phases.py DUMP_DIR PROFILE_JSONL

DUMP_DIR holds callgrind's dumps of a redis-server run under valgrind, one per profile phase
(`--phase-hook "callgrind_control --dump={} PID"`, see docs/benchmarks.md); PROFILE_JSONL is
the bench's stdout, which gives each phase's message count. Inclusive costs are summed from the
uncompressed dumps (--compress-strings=no --compress-pos=no), so that the split between the
inner commands, cmsgpack, string.format, strtod and the rest of the Lua call can be read off.
"""
import collections
import glob
import json
import sys

# (label, function whose inclusive cost it is)
PARTS = [
    ('EVALSHA (luaCallFunction)', 'luaCallFunction'),
    ('  redis.call: inner commands (scriptCall)', 'scriptCall'),
    ('  cmsgpack.pack', 'mp_pack'),
    ('  cmsgpack.unpack', 'mp_unpack'),
    ('  string.format (vfprintf)', '__vfprintf_internal'),
    ('  tonumber (strtod)', '____strtod_l_internal'),
    ('request parsing (processMultibulkBuffer)', 'processMultibulkBuffer'),
]
INSIDE_LUA = ['scriptCall', 'mp_pack', 'mp_unpack', '__vfprintf_internal', '____strtod_l_internal']
# The commands the scripts run (design.md, section 7), by their implementing function.
COMMANDS = ['time', 'incrby', 'set', 'hexists', 'hget', 'hmget', 'hset', 'hdel', 'hincrby',
            'hgetall', 'exists', 'zadd', 'zrem', 'zrange', 'zrangebyscore', 'zscore', 'zmscore',
            'zcard', 'zcount', 'zremrangebyrank', 'spublish']


def costs(path):
    """Self cost per function and inclusive cost per (caller, callee) call arc."""
    self_cost, arcs = collections.Counter(), collections.Counter()
    fn, callee, after_calls = None, None, False
    with open(path, errors='replace') as f:
        for line in f:
            if line.startswith('fn='):
                fn, after_calls = line[3:].rstrip('\n'), False
            elif line.startswith('cfn='):
                callee = line[4:].rstrip('\n')
            elif line.startswith('calls='):
                after_calls = True
            elif line[:1].isdigit() or line[:1] in '+-*':
                fields = line.split()
                if len(fields) < 2:
                    continue
                if after_calls:
                    arcs[(fn, callee)] += int(fields[1])
                    after_calls = False
                else:
                    self_cost[fn] += int(fields[1])
    return self_cost, arcs


def phase_name(path):
    with open(path, errors='replace') as f:
        for line in f:
            if line.startswith('desc: Trigger'):
                return line.split('dump ')[-1].strip()
    return ''


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    phases = {}
    with open(sys.argv[2]) as f:
        for line in f:
            if line.startswith('{'):
                row = json.loads(line)
                if row.get('mode') == 'profile':
                    phases[row['variant']] = row
    dumps = glob.glob(sys.argv[1] + '/*.out.*')
    for path in sorted(dumps, key=lambda p: int(p.rsplit('.', 1)[1])):
        name = phase_name(path)
        if name not in phases:
            continue  # the "before_" dumps only close the previous window
        n = phases[name]['n']
        self_cost, arcs = costs(path)
        incl = collections.Counter(self_cost)
        for (caller, callee), c in arcs.items():
            if caller != callee:
                incl[caller] += c
        total = sum(self_cost.values())
        print(f'== {name}: {n} messages, {phases[name]["calls"]} calls, '
              f'{total / n:,.0f} instructions per message')
        for label, fn in PARTS:
            print(f'   {incl[fn] / n:>9,.0f}  {label}')
        rest = incl['luaCallFunction'] - sum(incl[x] for x in INSIDE_LUA)
        print(f'   {rest / n:>9,.0f}    Lua VM, arguments and reply (the rest of EVALSHA)')
        commands = sorted(((c, incl[c + 'Command']) for c in COMMANDS if incl[c + 'Command']),
                          key=lambda x: -x[1])
        print('   inner commands per message: ' +
              ', '.join(f'{name} {c / n:,.0f}' for name, c in commands))


if __name__ == '__main__':
    main()
