// BullMQ under the workload of `delayq-bench --mode precision`, for docs/benchmarks.md.
//
// Producers add delayed jobs at a steady rate (1 ms ticks, each tick an addBulk of what the
// schedule owes by its end), each job's delay uniform over 0..spread; workers complete them at
// once. One JSON line per rate on stdout, with the fields of delayq's precision lines.
//
// Clocks. BullMQ stamps a job with its producer's clock (job.timestamp) and its due time is
// timestamp + delay on that clock; the worker stamps processedOn with its own clock. Producers
// and workers run on this machine, so they share the local system clock:
//   lateness_ms        processedOn - due: when BullMQ moved the job to active, by its own clock
//                      (the counterpart of delayq's Redis-clock figure, delivered_at - due);
//   local_lateness_ms  handler start (local clock, sub-millisecond) - due: the same reference
//                      as delayq's handler figure, whose due instant is moved to the local clock
//                      by the measured offset to Redis TIME.
// Headline figures are over the steady window (jobs due from `spread` after the first add to
// the planned end of adding), all_ figures over every job, early counts over every job.
//
// usage: npm ci && node precision.mjs --rates 30000,150000 [--labels r10,r50] [--duration 60]
//        [--spread 10] [--producers 2] [--workers 1] [--concurrency 64] [--redis redis://..]
// Without --redis it starts a redis-server of its own on a free loopback port (never 6379),
// with a temporary directory and no persistence, as delayq-bench does.

import { fork, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue, Worker } from 'bullmq';
import IORedis from 'ioredis';

// Sends to the parent and waits until the message left: the process exits right after.
const tell = (msg) => new Promise((resolve) => process.send(msg, resolve));
const nowMs = () => performance.timeOrigin + performance.now();
const PAYLOAD = '0123456789abcdef';
// A run that falls this far behind (adding, or a job's handler lateness) did not keep up.
const BEHIND_MS = 5000;

function parseArgs(argv) {
  const o = { duration: 60, spread: 10, producers: 2, workers: 1, concurrency: 64 };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (v === undefined) throw new Error(`${k} needs a value`);
    const key = k.replace(/^--/, '');
    if (['rates', 'labels'].includes(key)) o[key] = v.split(',').filter(Boolean);
    else if (['redis', 'role', 'queue'].includes(key)) o[key] = v;
    else if (key in o || ['rate', 'seed'].includes(key)) o[key] = Number(v);
    else throw new Error(`unknown option ${k}`);
  }
  return o;
}

function connectionOf(url) {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || 6379), maxRetriesPerRequest: null };
}

// Tells the parent this child is connected, and waits for the common start instant (local
// clock, ms), so that the fork and connection set-up of the children is not part of the run.
async function ready() {
  const go = new Promise((resolve) => process.once('message', resolve));
  await tell({ type: 'ready' });
  return go;
}

// ---- producer process --------------------------------------------------------------------

async function produce(o) {
  const queue = new Queue(o.queue, { connection: connectionOf(o.redis) });
  await queue.waitUntilReady();
  const { start } = await ready();
  const spreadMs = o.spread * 1000;
  const total = Math.floor(o.rate * o.duration);
  let sent = 0;
  let maxLag = 0;
  let seed = o.seed >>> 0;
  const random = () => {
    // xorshift32: a reproducible stream per producer, as delayq's mt19937 with a fixed seed.
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) / 4294967296;
  };
  const t0 = start;
  let lastReport = t0;
  for (let tick = 1; sent < total; ++tick) {
    const at = t0 + (tick - 1);
    const wait = at - nowMs();
    if (wait > 0) await sleep(wait);
    const lag = nowMs() - at;
    maxLag = Math.max(maxLag, lag);
    if (lag > BEHIND_MS) break;
    const owed = Math.min(total, Math.floor((o.rate * tick) / 1000));
    while (sent < owed) {
      const k = Math.min(owed - sent, 1000);
      const jobs = [];
      for (let i = 0; i < k; ++i) {
        jobs.push({
          name: 'j',
          data: PAYLOAD,
          opts: {
            delay: Math.floor(random() * (spreadMs + 1)),
            removeOnComplete: true,
            removeOnFail: true,
          },
        });
      }
      await queue.addBulk(jobs);
      sent += k;
    }
    // Skip the ticks the sends overran: the next one sends what they owed.
    tick = Math.max(tick, Math.floor(nowMs() - t0));
    if (nowMs() - lastReport > 1000) {
      process.send({ type: 'progress', sent, maxLag });
      lastReport = nowMs();
    }
  }
  const wall = (nowMs() - t0) / 1000;
  await queue.close();
  await tell({ type: 'done', sent, maxLag, wall, behind: sent < total });
}

// ---- worker process ----------------------------------------------------------------------

function summary(samples, withMin) {
  const values = Array.from(samples);
  if (values.length === 0) return { p50: 0, p90: 0, p99: 0, p99_9: 0, max: 0 };
  values.sort((a, b) => a - b);
  const at = (p) => values[Math.min(values.length, Math.max(1, Math.ceil((p / 100) * values.length))) - 1];
  const out = { p50: at(50), p90: at(90), p99: at(99), p99_9: at(99.9), max: values[values.length - 1] };
  if (withMin) out.min = values[0];
  return out;
}

async function work(o) {
  let steadyFrom = Infinity;
  let steadyTo = -Infinity;
  const s = { all: [], allLocal: [], steady: [], steadyLocal: [], early: 0, localEarly: 0 };
  let processed = 0;
  let maxLocal = 0;
  const worker = new Worker(
    o.queue,
    async (job) => {
      const start = nowMs();
      const due = job.timestamp + (job.opts.delay ?? 0);
      const late = job.processedOn - due;
      const localLate = start - due;
      s.all.push(late);
      s.allLocal.push(localLate);
      if (due >= steadyFrom && due <= steadyTo) {
        s.steady.push(late);
        s.steadyLocal.push(localLate);
      }
      if (late < 0) ++s.early;
      if (localLate < 0) ++s.localEarly;
      maxLocal = Math.max(maxLocal, localLate);
      ++processed;
    },
    { connection: connectionOf(o.redis), concurrency: o.concurrency },
  );
  worker.on('error', (e) => console.error(`worker: ${e.message}`));
  await worker.waitUntilReady();
  const { start } = await ready();
  steadyFrom = start + o.spread * 1000;
  steadyTo = start + o.duration * 1000;
  const timer = setInterval(() => process.send({ type: 'progress', processed, maxLocal }), 1000);
  await new Promise((resolve) => process.once('message', resolve)); // 'stop'
  clearInterval(timer);
  await worker.close();
  // Raw samples (typed arrays pass through the 'advanced' IPC serialization), so that the
  // parent can take percentiles over every worker together.
  await tell({
    type: 'done',
    processed,
    steady: Float64Array.from(s.steady),
    steadyLocal: Float64Array.from(s.steadyLocal),
    all: Float64Array.from(s.all),
    allLocal: Float64Array.from(s.allLocal),
    early: s.early,
    localEarly: s.localEarly,
  });
}

// ---- the run ---------------------------------------------------------------------------

async function freePort() {
  for (;;) {
    const port = await new Promise((resolve, reject) => {
      const srv = createServer();
      srv.once('error', reject);
      srv.listen(0, '127.0.0.1', () => {
        const p = srv.address().port;
        srv.close(() => resolve(p));
      });
    });
    if (port !== 6379) return port;
  }
}

async function startRedis() {
  const dir = mkdtempSync(join(tmpdir(), 'delayq-bullmq-'));
  const port = await freePort();
  const proc = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 200; ++i) {
    const c = new IORedis({ ...connectionOf(url), lazyConnect: true, retryStrategy: () => null });
    c.on('error', () => {});
    try {
      await c.connect();
      await c.ping();
      c.disconnect();
      return { url, stop: () => { proc.kill('SIGKILL'); rmSync(dir, { recursive: true, force: true }); } };
    } catch {
      c.disconnect();
      await sleep(25);
    }
  }
  proc.kill('SIGKILL');
  throw new Error('redis-server did not start');
}

function child(role, args) {
  const p = fork(new URL(import.meta.url).pathname, ['--role', role, ...args], {
    serialization: 'advanced',
  });
  const ready = new Promise((resolve) => p.on('message', (m) => m.type === 'ready' && resolve()));
  const done = new Promise((resolve, reject) => {
    p.on('message', (m) => m.type === 'done' && resolve(m));
    p.on('exit', (code) => code !== 0 && reject(new Error(`${role} exited with ${code}`)));
  });
  return { p, ready, done };
}

async function redisCpu(redis) {
  const info = await redis.info('cpu');
  const field = (name) => Number(info.match(new RegExp(`${name}:([0-9.]+)`))[1]);
  return field('used_cpu_sys') + field('used_cpu_user');
}

async function runRate(o, url, rate, label, index) {
  const queue = `precision-${process.pid}-${index}`;
  const common = ['--redis', url, '--queue', queue, '--duration', String(o.duration), '--spread', String(o.spread)];
  const redis = new IORedis(connectionOf(url));
  const workers = [];
  for (let i = 0; i < o.workers; ++i) {
    workers.push(child('worker', [...common, '--concurrency', String(o.concurrency)]));
  }
  const producers = [];
  for (let i = 0; i < o.producers; ++i) {
    producers.push(child('producer', [...common, '--rate', String(rate / o.producers), '--seed', String(1234 + 1000 * index + i)]));
  }
  const all = [...workers, ...producers];
  await Promise.all(all.map((c) => c.ready));
  let processed = 0;
  let maxLocal = 0;
  const perWorker = new Map();
  for (const w of workers) {
    w.p.on('message', (m) => {
      if (m.type !== 'progress') return;
      perWorker.set(w, m.processed);
      processed = [...perWorker.values()].reduce((a, b) => a + b, 0);
      maxLocal = Math.max(maxLocal, m.maxLocal);
    });
  }
  const cpu0 = await redisCpu(redis);
  const t0 = nowMs() + 50;
  for (const c of all) c.p.send({ start: t0 });
  // Workers falling behind end the run early, as producers that cannot keep the pace do.
  let behindWorkers = false;
  const watch = setInterval(() => {
    if (maxLocal > BEHIND_MS && !behindWorkers) {
      behindWorkers = true;
      for (const p of producers) p.p.kill('SIGKILL');
    }
  }, 200);
  const lastSent = producers.map(() => ({ sent: 0, maxLag: 0 }));
  producers.forEach((p, i) => p.p.on('message', (m) => m.type === 'progress' && (lastSent[i] = m)));
  const sentBy = await Promise.all(
    producers.map((p, i) => p.done.catch(() => ({ ...lastSent[i], behind: true }))),
  );
  clearInterval(watch);
  const sendWall = (nowMs() - t0) / 1000;
  const sent = sentBy.reduce((a, m) => a + m.sent, 0);
  const behindProducers = sentBy.some((m) => m.behind);
  const deadline = nowMs() + o.spread * 1000 + 30000;
  while (!behindWorkers && !behindProducers && nowMs() < deadline) {
    const counts = await redis.call('ZCARD', `bull:${queue}:delayed`);
    const waiting = await redis.call('LLEN', `bull:${queue}:wait`);
    const active = await redis.call('LLEN', `bull:${queue}:active`);
    if (counts + waiting + active === 0 && processed >= sent) break;
    await sleep(50);
  }
  const wall = (nowMs() - t0) / 1000;
  const cpu1 = await redisCpu(redis);
  const results = [];
  for (const w of workers) {
    w.p.send('stop');
    results.push(await w.done);
  }
  await redis.flushall();
  redis.disconnect();
  const handled = results.reduce((a, m) => a + m.processed, 0);
  const merged = (field) => results.flatMap((m) => Array.from(m[field]));
  return {
    mode: 'precision_bullmq',
    variant: label,
    rate_per_s: rate,
    seconds: o.duration,
    spread_ms: o.spread * 1000,
    producers: o.producers,
    workers: o.workers,
    concurrency: o.concurrency,
    send_msgs_per_s: sent / sendWall,
    max_send_lag_ms: Math.max(...sentBy.map((m) => m.maxLag)),
    kept_up: !behindProducers && !behindWorkers && handled === sent,
    producers_behind: behindProducers,
    workers_behind: behindWorkers,
    lateness_ms: summary(merged('steady'), true),
    local_lateness_ms: summary(merged('steadyLocal'), true),
    steady_count: merged('steady').length,
    all_lateness_ms: summary(merged('all'), true),
    all_local_lateness_ms: summary(merged('allLocal'), true),
    early_count: results.reduce((a, m) => a + m.early, 0),
    local_early_count: results.reduce((a, m) => a + m.localEarly, 0),
    sent,
    delivered: handled,
    redis_cpu_util: (cpu1 - cpu0) / wall,
    redis_cpu_us_per_msg: handled > 0 ? ((cpu1 - cpu0) * 1e6) / handled : 0,
    loadavg_1m: loadavg()[0],
    bullmq_clock: 'client (local system clock); lateness_ms is processedOn - (timestamp + delay)',
  };
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  if (o.role === 'producer') return produce(o);
  if (o.role === 'worker') return work(o);
  if (!o.rates || o.rates.length === 0) throw new Error('--rates LIST is required (msgs/s)');
  const rates = o.rates.map(Number);
  const server = o.redis ? null : await startRedis();
  const url = o.redis ?? server.url;
  console.error(`[bullmq-precision] redis at ${url}`);
  try {
    for (let i = 0; i < rates.length; ++i) {
      const label = o.labels?.[i] ?? `rate_${rates[i]}`;
      console.error(`[bullmq-precision] ${label}: ${rates[i]} jobs/s for ${o.duration} s`);
      const line = await runRate(o, url, rates[i], label, i);
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
