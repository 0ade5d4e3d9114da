// bee-queue for the precision harness.
//
// Clocks. A delayed job's due time is an absolute instant on its producer's clock
// (job.options.delay, set by delayUntil); a job due at once goes straight to the waiting list,
// and its due time is its creation stamp (job.options.timestamp). A worker raises delayed jobs
// whose due time is <= its own Date.now(), on a timer aimed at the head of the delayed set
// (and at jobs up to delayedDebounce after it, which it raises together). Producers and
// workers here share the local system clock. bee-queue stamps no time when it raises or hands
// out a job, so there is no figure on its own clock: lateness_ms and early_count are null and
// the handler's figure (local_lateness_ms) is the one to compare.

import Queue from 'bee-queue';
import { connectionOf } from '../harness.mjs';

const PAYLOAD = '0123456789abcdef';

// Off what this workload does not use, as bee-queue's README advises for speed: job events
// (a publish per job, a subscriber per queue) and the Job map kept for them.
const QUIET = { getEvents: false, sendEvents: false, storeJobs: false };

function redisOf(url) {
  const { host, port } = connectionOf(url);
  return { host, port };
}

async function openProducer(url, name) {
  const queue = new Queue(name, { redis: redisOf(url), isWorker: false, ...QUIET });
  await queue.ready();
  const add = async (delays) => {
    const now = Date.now();
    // delayUntil keeps only instants still ahead, so a delay of 0 makes a job due at once.
    const jobs = delays.map((d) => queue.createJob(PAYLOAD).delayUntil(now + d));
    const errors = await queue.saveAll(jobs);
    if (errors.size > 0) throw [...errors.values()][0];
  };
  return { add, close: () => queue.close() };
}

async function openWorker(url, name, o, onJob) {
  const queue = new Queue(name, {
    redis: redisOf(url),
    ...QUIET,
    activateDelayedJobs: true,
    delayedDebounce: o['delayed-debounce'],
    // As BullMQ's removeOnComplete here: delayq keeps no record of an acked message.
    removeOnSuccess: true,
    removeOnFailure: true,
  });
  queue.on('error', (e) => console.error(`worker: ${e.message}`));
  await queue.ready();
  queue.process(o.concurrency, async (job) => onJob(job));
  return { close: () => queue.close() };
}

// The keys of bee-queue's that hold a job between its save and its success.
async function pending(redis, name) {
  const delayed = await redis.call('ZCARD', `bq:${name}:delayed`);
  const waiting = await redis.call('LLEN', `bq:${name}:waiting`);
  const active = await redis.call('LLEN', `bq:${name}:active`);
  return delayed + waiting + active;
}

export default {
  name: 'bee-queue',
  mode: 'precision_beequeue',
  libraryClock: false,
  openProducer,
  openWorker,
  dueMs: (job) => job.options.delay ?? job.options.timestamp,
  processedMs: () => null,
  pending,
  // bee-queue's default debounce (1000 ms) may hold a job up to a second past its due time
  // to raise it with later ones; 0 raises each due instant on its own, the tuned setting.
  options: { 'delayed-debounce': 0 },
  describe: (o) => ({
    delayed_debounce_ms: o['delayed-debounce'],
    beequeue_clock:
      'client (local system clock): due = options.delay, the producer\'s Date.now() + delay ' +
      '(options.timestamp for a job due at once), raised when a worker\'s Date.now() reaches it; ' +
      'bee-queue stamps no processing time, so lateness_ms and early_count are null',
  }),
};
