// The queue-independent half of precision.mjs: the workload of `delayq-bench --mode precision`
// (producers at a steady rate in 1 ms ticks, each job's delay uniform over 0..spread, workers
// that complete at once), measured the same way for every Node.js queue library. What differs
// between libraries lives in an adapter (adapters/*.mjs).
//
// An adapter is an object with:
//   name, mode                 the --lib name and the JSON line's mode
//   libraryClock               true when the library stamps when it processed a job (then
//                              lateness_ms is that stamp - due, on the library's clock)
//   openProducer(url, queue, o)          -> { add(delaysMs[]), close() }
//   openWorker(url, queue, o, onJob)     -> { close() }; onJob(job) at each handler's start
//   dueMs(job), processedMs(job)         the job's due time and the library's stamp (ms)
//   pending(redis, queue)                jobs not yet finished, read from Redis (ioredis)
//   options                              its own numeric options: { 'flag-name': default }
//   describe(o)                          fields the library adds to the JSON line

import { fork, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import IORedis from 'ioredis';

// Sends to the parent and waits until the message left: the process exits right after.
const tell = (msg) => new Promise((resolve) => process.send(msg, resolve));
export const nowMs = () => performance.timeOrigin + performance.now();
// A run that falls this far behind (adding, or a job's handler lateness) did not keep up.
const BEHIND_MS = 5000;
// Jobs added per library call at most, so that one tick's catch-up does not build one huge call.
const BULK_MAX = 1000;

export function connectionOf(url) {
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

// xorshift32: a reproducible stream per producer, as delayq's mt19937 with a fixed seed.
function xorshift(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

export async function produce(adapter, o) {
  const producer = await adapter.openProducer(o.redis, o.queue, o);
  const { start } = await ready();
  const spreadMs = o.spread * 1000;
  const total = Math.floor(o.rate * o.duration);
  const random = xorshift(o.seed);
  let sent = 0;
  let maxLag = 0;
  let lastReport = start;
  for (let tick = 1; sent < total; ++tick) {
    const at = start + (tick - 1);
    const wait = at - nowMs();
    if (wait > 0) await sleep(wait);
    const lag = nowMs() - at;
    maxLag = Math.max(maxLag, lag);
    if (lag > BEHIND_MS) break;
    const owed = Math.min(total, Math.floor((o.rate * tick) / 1000));
    while (sent < owed) {
      const k = Math.min(owed - sent, BULK_MAX);
      const delays = Array.from({ length: k }, () => Math.floor(random() * (spreadMs + 1)));
      await producer.add(delays);
      sent += k;
    }
    // Skip the ticks the sends overran: the next one sends what they owed.
    tick = Math.max(tick, Math.floor(nowMs() - start));
    if (nowMs() - lastReport > 1000) {
      process.send({ type: 'progress', sent, maxLag });
      lastReport = nowMs();
    }
  }
  const wall = (nowMs() - start) / 1000;
  await producer.close();
  await tell({ type: 'done', sent, maxLag, wall, behind: sent < total });
}

// ---- worker process ----------------------------------------------------------------------

export function summary(samples, withMin) {
  const values = Array.from(samples);
  if (values.length === 0) return { p50: 0, p90: 0, p99: 0, p99_9: 0, max: 0 };
  values.sort((a, b) => a - b);
  const at = (p) => values[Math.min(values.length, Math.max(1, Math.ceil((p / 100) * values.length))) - 1];
  const out = { p50: at(50), p90: at(90), p99: at(99), p99_9: at(99.9), max: values[values.length - 1] };
  if (withMin) out.min = values[0];
  return out;
}

// Lateness samples of one worker process. The steady window is known only at the start
// barrier; until then no job is steady (none is added before it anyway).
function samples(adapter) {
  const s = {
    steadyFrom: Infinity, steadyTo: -Infinity, processed: 0, maxLocal: 0,
    all: [], allLocal: [], steady: [], steadyLocal: [], early: 0, localEarly: 0,
  };
  s.record = (job, start) => {
    const due = adapter.dueMs(job);
    const localLate = start - due;
    const steady = due >= s.steadyFrom && due <= s.steadyTo;
    s.allLocal.push(localLate);
    if (steady) s.steadyLocal.push(localLate);
    if (localLate < 0) ++s.localEarly;
    if (adapter.libraryClock) {
      const late = adapter.processedMs(job) - due;
      s.all.push(late);
      if (steady) s.steady.push(late);
      if (late < 0) ++s.early;
    }
    s.maxLocal = Math.max(s.maxLocal, localLate);
    ++s.processed;
  };
  return s;
}

export async function work(adapter, o) {
  const s = samples(adapter);
  // The handler's start is read first, before anything the harness does with the job.
  const worker = await adapter.openWorker(o.redis, o.queue, o, (job) => s.record(job, nowMs()));
  const { start } = await ready();
  s.steadyFrom = start + o.spread * 1000;
  s.steadyTo = start + o.duration * 1000;
  const progress = () => process.send({ type: 'progress', processed: s.processed, maxLocal: s.maxLocal });
  const timer = setInterval(progress, 1000);
  await new Promise((resolve) => process.once('message', resolve)); // 'stop'
  clearInterval(timer);
  await worker.close();
  // Raw samples (typed arrays pass through the 'advanced' IPC serialization), so that the
  // parent can take percentiles over every worker together.
  await tell({
    type: 'done',
    processed: s.processed,
    steady: Float64Array.from(s.steady),
    steadyLocal: Float64Array.from(s.steadyLocal),
    all: Float64Array.from(s.all),
    allLocal: Float64Array.from(s.allLocal),
    early: s.early,
    localEarly: s.localEarly,
  });
}

// ---- the redis-server ----------------------------------------------------------------------

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

async function pingable(url) {
  const c = new IORedis({ ...connectionOf(url), lazyConnect: true, retryStrategy: () => null });
  c.on('error', () => {});
  try {
    await c.connect();
    await c.ping();
    return true;
  } catch {
    return false;
  } finally {
    c.disconnect();
  }
}

// A redis-server of the run's own, as delayq-bench starts: a free loopback port (never the
// default one, which may hold someone's data), a temporary directory, no persistence.
export async function startRedis() {
  const dir = mkdtempSync(join(tmpdir(), 'delayq-node-'));
  const port = await freePort();
  const proc = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const stop = () => {
    proc.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  for (let i = 0; i < 200; ++i) {
    if (await pingable(url)) return { url, stop };
    await sleep(25);
  }
  stop();
  throw new Error('redis-server did not start');
}

async function redisCpu(redis) {
  const info = await redis.info('cpu');
  const field = (name) => Number(info.match(new RegExp(`${name}:([0-9.]+)`))[1]);
  return field('used_cpu_sys') + field('used_cpu_user');
}

// ---- the parent: one rate ------------------------------------------------------------------

function child(entry, role, args) {
  const p = fork(entry, ['--role', role, ...args], { serialization: 'advanced' });
  const ready = new Promise((resolve) => p.on('message', (m) => m.type === 'ready' && resolve()));
  const done = new Promise((resolve, reject) => {
    p.on('message', (m) => m.type === 'done' && resolve(m));
    p.on('exit', (code) => code !== 0 && reject(new Error(`${role} exited with ${code}`)));
  });
  return { p, ready, done };
}

// Handled jobs and the worst handler lateness so far, from the workers' progress messages.
function watchWorkers(workers) {
  const state = { processed: 0, maxLocal: 0 };
  const perWorker = new Map();
  for (const w of workers) {
    w.p.on('message', (m) => {
      if (m.type !== 'progress') return;
      perWorker.set(w, m.processed);
      state.processed = [...perWorker.values()].reduce((a, b) => a + b, 0);
      state.maxLocal = Math.max(state.maxLocal, m.maxLocal);
    });
  }
  return state;
}

// Waits for the producers; workers falling behind end the run early (their producers are
// killed), as producers that cannot keep the pace do. A killed producer's count is its last
// progress report.
async function sendPhase(producers, workerState) {
  let behindWorkers = false;
  const watch = setInterval(() => {
    if (workerState.maxLocal > BEHIND_MS && !behindWorkers) {
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
  return { sentBy, behindWorkers };
}

// Polls until every job added was handled and the library holds none, or the last due time
// plus 30 s passed.
async function drain(adapter, redis, queue, o, sent, workerState) {
  const deadline = nowMs() + o.spread * 1000 + 30000;
  while (nowMs() < deadline) {
    if ((await adapter.pending(redis, queue)) === 0 && workerState.processed >= sent) return;
    await sleep(50);
  }
}

// The adapter's own options, for the children's command lines.
const libArgs = (adapter, o) => Object.keys(adapter.options).flatMap((k) => [`--${k}`, String(o[k])]);

export async function runRate(adapter, entry, o, url, rate, label, index) {
  const queue = `precision-${process.pid}-${index}`;
  const common = ['--lib', adapter.name, '--redis', url, '--queue', queue,
    '--duration', String(o.duration), '--spread', String(o.spread), ...libArgs(adapter, o)];
  const redis = new IORedis(connectionOf(url));
  const workers = Array.from({ length: o.workers }, () =>
    child(entry, 'worker', [...common, '--concurrency', String(o.concurrency)]));
  const producers = Array.from({ length: o.producers }, (_, i) =>
    child(entry, 'producer', [...common, '--rate', String(rate / o.producers), '--seed', String(1234 + 1000 * index + i)]));
  const all = [...workers, ...producers];
  await Promise.all(all.map((c) => c.ready));
  const workerState = watchWorkers(workers);
  const cpu0 = await redisCpu(redis);
  const t0 = nowMs() + 50;
  for (const c of all) c.p.send({ start: t0 });
  const { sentBy, behindWorkers } = await sendPhase(producers, workerState);
  const sendWall = (nowMs() - t0) / 1000;
  const sent = sentBy.reduce((a, m) => a + m.sent, 0);
  const behindProducers = sentBy.some((m) => m.behind);
  if (!behindWorkers && !behindProducers) await drain(adapter, redis, queue, o, sent, workerState);
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
  // Falling behind after the sends ended (while draining) is falling behind too: without this
  // a run with handler lateness of seconds counted as kept up.
  const workersBehind = behindWorkers || merged('allLocal').some((late) => late > BEHIND_MS);
  // Without a library stamp there is no figure on the library's clock: null, not zeros.
  const libraryFigure = (value) => (adapter.libraryClock ? value() : null);
  return {
    mode: adapter.mode,
    variant: label,
    rate_per_s: rate,
    seconds: o.duration,
    spread_ms: o.spread * 1000,
    producers: o.producers,
    workers: o.workers,
    concurrency: o.concurrency,
    send_msgs_per_s: sent / sendWall,
    max_send_lag_ms: Math.max(...sentBy.map((m) => m.maxLag)),
    kept_up: !behindProducers && !workersBehind && handled === sent,
    producers_behind: behindProducers,
    workers_behind: workersBehind,
    lateness_ms: libraryFigure(() => summary(merged('steady'), true)),
    local_lateness_ms: summary(merged('steadyLocal'), true),
    steady_count: merged('steadyLocal').length,
    all_lateness_ms: libraryFigure(() => summary(merged('all'), true)),
    all_local_lateness_ms: summary(merged('allLocal'), true),
    early_count: libraryFigure(() => results.reduce((a, m) => a + m.early, 0)),
    local_early_count: results.reduce((a, m) => a + m.localEarly, 0),
    sent,
    delivered: handled,
    redis_cpu_util: (cpu1 - cpu0) / wall,
    redis_cpu_us_per_msg: handled > 0 ? ((cpu1 - cpu0) * 1e6) / handled : 0,
    loadavg_1m: loadavg()[0],
    ...adapter.describe(o),
  };
}
