// Node.js Redis queues under the workload of `delayq-bench --mode precision`, for
// docs/benchmarks.md: BullMQ (--lib bullmq) and bee-queue (--lib bee-queue).
//
// Producers add delayed jobs at a steady rate (1 ms ticks, each tick a bulk add of what the
// schedule owes by its end), each job's delay uniform over 0..spread; workers complete them at
// once. One JSON line per rate on stdout, with the fields of delayq's precision lines:
//   lateness_ms        the library's own stamp of when it processed the job - due, on its own
//                      clock, where it stamps one (null where it does not; see the adapter);
//   local_lateness_ms  handler start (local clock, sub-millisecond) - due: the same reference
//                      as delayq's handler figure, whose due instant is moved to the local clock
//                      by the measured offset to Redis TIME.
// Headline figures are over the steady window (jobs due from `spread` after the first add to
// the planned end of adding), all_ figures over every job, early counts over every job.
// Both libraries take due times from client clocks; the adapters say how, in the JSON line.
//
// usage: npm ci && node precision.mjs --lib bullmq|bee-queue --rates 30000,150000
//        [--labels r10,r50] [--duration 60] [--spread 10] [--producers 2] [--workers 1]
//        [--concurrency 64] [--redis redis://..] [--delayed-debounce 0 (bee-queue)]
// Without --redis it starts a redis-server of its own on a free loopback port (never 6379),
// with a temporary directory and no persistence, as delayq-bench does.

import { fileURLToPath } from 'node:url';
import { produce, runRate, startRedis, work } from './harness.mjs';

// Loaded on demand, so that a run of one library does not load the other.
const ADAPTERS = {
  bullmq: () => import('./adapters/bullmq.mjs'),
  'bee-queue': () => import('./adapters/beequeue.mjs'),
};

const LISTS = ['rates', 'labels'];
const STRINGS = ['redis', 'role', 'queue', 'lib'];
// The children's own options, which the parent passes on.
const CHILD_NUMBERS = ['rate', 'seed'];

// `libOptions` are the adapter's own numeric options with their defaults, kept under their
// flag names (--delayed-debounce: o['delayed-debounce']).
function parseArgs(argv, libOptions) {
  const o = { duration: 60, spread: 10, producers: 2, workers: 1, concurrency: 64, ...libOptions };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (v === undefined) throw new Error(`${k} needs a value`);
    const key = k.replace(/^--/, '');
    if (LISTS.includes(key)) o[key] = v.split(',').filter(Boolean);
    else if (STRINGS.includes(key)) o[key] = v;
    else if (key in o) o[key] = Number(v);
    else if (CHILD_NUMBERS.includes(key)) o[key] = Number(v);
    else throw new Error(`unknown option ${k}`);
  }
  return o;
}

async function adapterFor(lib) {
  const load = ADAPTERS[lib];
  if (!load) throw new Error(`--lib must be one of ${Object.keys(ADAPTERS).join(', ')}`);
  return (await load()).default;
}

async function main() {
  const argv = process.argv.slice(2);
  const libAt = argv.indexOf('--lib');
  const adapter = await adapterFor(libAt >= 0 ? argv[libAt + 1] : undefined);
  const o = parseArgs(argv, adapter.options);
  if (o.role === 'producer') return produce(adapter, o);
  if (o.role === 'worker') return work(adapter, o);
  if (!o.rates || o.rates.length === 0) throw new Error('--rates LIST is required (msgs/s)');
  const rates = o.rates.map(Number);
  const server = o.redis ? null : await startRedis();
  const url = o.redis ?? server.url;
  const tag = `[${adapter.name}-precision]`;
  console.error(`${tag} redis at ${url}`);
  if (o.duration <= o.spread) {
    // The steady window (due from `spread` after the first add to the end of adding) is empty:
    // the headline figures would be zeros over no job.
    console.error(`${tag} --duration ${o.duration} <= --spread ${o.spread}: no steady window, read the all_ figures`);
  }
  try {
    for (let i = 0; i < rates.length; ++i) {
      const label = o.labels?.[i] ?? `rate_${rates[i]}`;
      console.error(`${tag} ${label}: ${rates[i]} jobs/s for ${o.duration} s`);
      const line = await runRate(adapter, fileURLToPath(import.meta.url), o, url, rates[i], label, i);
      console.log(JSON.stringify(line));
    }
  } finally {
    server?.stop();
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(`precision.mjs: ${e.stack ?? e}`);
    process.exit(1);
  },
);
