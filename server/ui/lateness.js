// How late deliveries came after their due time: the queue's lateness histogram, which the API
// has only in GET /metrics (delayq_delivery_lateness_seconds, kept in Redis by every consumer's
// fetch). Read every 10 s: a scrape is cached by the server for its interval anyway.
import { apiText } from './api.js';
import { count, duration } from './format.js';

const kFamily = 'delayq_delivery_lateness_seconds';

// The queue's cumulative buckets [{le (seconds), count}], sorted, from the text format.
export function latenessBuckets(text, queue) {
  const buckets = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${kFamily}_bucket{`)) continue;
    const close = line.lastIndexOf('}');
    const labels = parseLabels(line.slice(line.indexOf('{') + 1, close));
    if (labels.queue !== queue) continue;
    const le = labels.le === '+Inf' ? Infinity : Number(labels.le);
    buckets.push({ le, count: Number(line.slice(close + 1).trim()) });
  }
  return buckets.sort((a, b) => a.le - b.le);
}

function parseLabels(text) {
  const labels = {};
  const pattern = /(\w+)="((?:[^"\\]|\\.)*)"/g;
  for (const m of text.matchAll(pattern)) {
    labels[m[1]] = m[2].replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
  }
  return labels;
}

// The bucket bound under which a fraction q of the deliveries came, as text ("≤ 5ms").
export function quantile(buckets, q) {
  const total = buckets.at(-1)?.count ?? 0;
  if (total === 0) return null;
  const b = buckets.find((x) => x.count >= q * total);
  if (!b || b.le === Infinity) {
    const below = buckets.at(-2);
    return below ? `> ${duration(below.le * 1000)}` : '?';
  }
  return `≤ ${duration(b.le * 1000)}`;
}

export function watchLateness(ctx, queue, cell) {
  ctx.every(10000, async () => {
    let text;
    try {
      text = await apiText('/metrics');
    } catch {
      cell.textContent = 'not available';
      return;
    }
    if (!ctx.alive) return;
    const buckets = latenessBuckets(text, queue);
    const total = buckets.at(-1)?.count ?? 0;
    cell.textContent = total === 0
      ? 'no deliveries yet'
      : `p50 ${quantile(buckets, 0.5)}, p99 ${quantile(buckets, 0.99)} (${count(total)} deliveries)`;
  });
}
