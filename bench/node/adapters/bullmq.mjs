// BullMQ for the precision harness.
//
// Clocks. BullMQ stamps a job with its producer's clock (job.timestamp) and its due time is
// timestamp + delay on that clock; the worker stamps processedOn with its own clock, when it
// moves the job to active. Producers and workers run on this machine, so they share the local
// system clock, and processedOn - due is the counterpart of delayq's Redis-clock figure
// (delivered_at - due).

import { Queue, Worker } from 'bullmq';
import { connectionOf } from '../harness.mjs';

const PAYLOAD = '0123456789abcdef';

async function openProducer(url, name) {
  const queue = new Queue(name, { connection: connectionOf(url) });
  await queue.waitUntilReady();
  // Completed and failed jobs are removed, as delayq keeps no record of an acked message.
  const opts = (delay) => ({ delay, removeOnComplete: true, removeOnFail: true });
  return {
    add: (delays) => queue.addBulk(delays.map((delay) => ({ name: 'j', data: PAYLOAD, opts: opts(delay) }))),
    close: () => queue.close(),
  };
}

async function openWorker(url, name, o, onJob) {
  const worker = new Worker(name, async (job) => onJob(job), {
    connection: connectionOf(url),
    concurrency: o.concurrency,
  });
  worker.on('error', (e) => console.error(`worker: ${e.message}`));
  await worker.waitUntilReady();
  return { close: () => worker.close() };
}

// The keys of BullMQ's that hold a job between its add and its completion.
async function pending(redis, name) {
  const delayed = await redis.call('ZCARD', `bull:${name}:delayed`);
  const waiting = await redis.call('LLEN', `bull:${name}:wait`);
  const active = await redis.call('LLEN', `bull:${name}:active`);
  return delayed + waiting + active;
}

export default {
  name: 'bullmq',
  mode: 'precision_bullmq',
  libraryClock: true,
  openProducer,
  openWorker,
  dueMs: (job) => job.timestamp + (job.opts.delay ?? 0),
  processedMs: (job) => job.processedOn,
  pending,
  options: {},
  describe: () => ({
    bullmq_clock: 'client (local system clock); lateness_ms is processedOn - (timestamp + delay)',
  }),
};
