// The queue's last hour from its history in Redis (GET /v1/queues/{queue}/history: a point every
// 10 s, the same from every server): messages sent, delivered and acked per second, retries and
// dead letters per second, and lateness p50 / p99 per period, from the differences between
// consecutive points (their totals and lateness buckets only grow). Line charts built with DOM
// calls, and the latest period's figures as text.
import { api, queuePath } from './api.js';
import { h, replace, svg } from './dom.js';
import { duration, rate, time } from './format.js';

const kWidth = 600;
const kHeight = 90;

// Per period (between consecutive points): rates per second and lateness quantiles (ms).
export function periods(points) {
  const out = [];
  for (let i = 1; i < points.length; i += 1) {
    const a = points[i - 1];
    const b = points[i];
    const seconds = (b.at_ms - a.at_ms) / 1000;
    if (seconds <= 0) continue;
    const per = (field) => Math.max(0, b[field] - a[field]) / seconds;
    const deltas = b.lateness.buckets.map((x, k) => ({
      le: x.le_ms, count: Math.max(0, x.count - (a.lateness.buckets[k]?.count ?? 0)),
    }));
    out.push({
      at: b.at_ms,
      sent: per('sent'), delivered: per('delivered'), acked: per('acked'),
      retried: per('retried'), dead: per('dead_lettered'),
      p50: quantileMs(deltas, 0.5), p99: quantileMs(deltas, 0.99),
    });
  }
  return out;
}

// The upper bound (ms) of the bucket holding the q-th delivery of a period; null without
// deliveries, Infinity past the last bound.
export function quantileMs(buckets, q) {
  const total = buckets.reduce((n, b) => n + b.count, 0);
  if (total === 0) return null;
  let seen = 0;
  for (const b of buckets) {
    seen += b.count;
    if (seen >= q * total) return b.le === null ? Infinity : b.le;
  }
  return Infinity;
}

export function renderHistory(ctx, section, queue) {
  const body = h('div');
  replace(section, h('h2', { id: 'history-h' }, 'The last hour'), body);
  ctx.every(10000, async () => {
    let history;
    try {
      history = await api('GET', `${queuePath(queue)}/history`);
    } catch (e) {
      if (e.status === 404 || e.status === 403) { section.hidden = true; return; }
      throw e;
    }
    if (!ctx.alive) return;
    draw(body, periods(history.points));
  });
}

function draw(body, list) {
  if (list.length === 0) {
    replace(body, h('p', { class: 'muted' },
      'The history starts with this page: a point every 10 s, so the first figures come within 20 s.'));
    return;
  }
  const last = list.at(-1);
  const finite = (v) => (v === null || v === Infinity ? null : v);
  const latency = (v) => (v === null ? '—' : v === Infinity ? 'over the last bound' : `≤ ${duration(v)}`);
  replace(body,
    h('p', { id: 'history-latest' }, `Last 10 s (to ${time(last.at)}): `,
      `sent ${rate(last.sent)}/s, delivered ${rate(last.delivered)}/s, acked ${rate(last.acked)}/s, `,
      `retried ${rate(last.retried)}/s, dead-lettered ${rate(last.dead)}/s; `,
      `lateness p50 ${latency(last.p50)}, p99 ${latency(last.p99)}.`),
    chart('Messages per second', list, [['sent', 'Sent'], ['delivered', 'Delivered'], ['acked', 'Acked']], (v) => v),
    chart('Retries and dead letters per second', list, [['retried', 'Retried'], ['dead', 'Dead-lettered']], (v) => v),
    chart('Lateness p50 and p99 (ms)', list, [['p50', 'p50'], ['p99', 'p99']], finite));
}

function chart(title, list, series, value) {
  const values = list.flatMap((p) => series.map(([key]) => value(p[key]))).filter((v) => v !== null);
  const max = Math.max(1, ...values);
  const x = (i) => (list.length === 1 ? kWidth / 2 : (i / (list.length - 1)) * kWidth);
  const y = (v) => kHeight - 2 - (v / max) * (kHeight - 4);
  const lines = series.map(([key, label], s) => {
    const pts = list.map((p, i) => [i, value(p[key])]).filter(([, v]) => v !== null)
      .map(([i, v]) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    return svg('polyline', { points: pts, class: `line line-${s}` }, svg('title', null, label));
  });
  return h('figure', { class: 'history-chart' },
    h('figcaption', null, title, ' (up to ', String(Math.round(max * 10) / 10), '): ',
      series.map(([, label], s) => h('span', { class: `key key-${s}` }, label)).flatMap((e, i) => (i ? [', ', e] : [e]))),
    svg('svg', { viewBox: `0 0 ${kWidth} ${kHeight}`, preserveAspectRatio: 'none', class: 'history', role: 'img', 'aria-label': title }, lines));
}
