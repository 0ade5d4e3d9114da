// The queue's last hour from its history in Redis (GET /v1/queues/{queue}/history: a point every
// 10 s, the same from every server, and the server's figures between them): messages sent,
// delivered and acked per second, retries and dead letters per second, and lateness p50 / p99
// per period, as line charts built with DOM calls, and the latest period's figures as text.
// The hour's lateness also goes to the queue page's facts.
import { api, queuePath } from './api.js';
import { h, replace, svg } from './dom.js';
import { count, duration, lateness, rate, time } from './format.js';

const kWidth = 600;
const kHeight = 90;
// The charts' lateness: a quantile past the last bound (null) is drawn at that bound, 30 min.
const kLastBoundMs = 1800000;

export function renderHistory(ctx, section, queue, hourCell) {
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
    const hour = history.hour;
    hourCell.textContent = !hour || hour.deliveries === 0
      ? 'no deliveries in the last hour'
      : `p50 ${lateness(hour, 'lateness_p50_le_ms')}, p99 ${lateness(hour, 'lateness_p99_le_ms')} ` +
        `(${count(hour.deliveries)} deliveries over ${duration(hour.to_ms - hour.from_ms)})`;
    draw(body, history.periods.map(figures));
  });
}

// A period's figures under the charts' names; lateness in ms, null without deliveries. `span`
// is the period as the server gave it, for the text.
function figures(p) {
  const late = (le) => (p.deliveries === 0 ? null : le ?? kLastBoundMs);
  return {
    at: p.to_ms, sent: p.sent_per_s, delivered: p.delivered_per_s, acked: p.acked_per_s,
    retried: p.retried_per_s, dead: p.dead_lettered_per_s,
    p50: late(p.lateness_p50_le_ms), p99: late(p.lateness_p99_le_ms), span: p,
  };
}

function draw(body, list) {
  if (list.length === 0) {
    replace(body, h('p', { class: 'muted' },
      'The history starts with this page: a point every 10 s, so the first figures come within 20 s.'));
    return;
  }
  const last = list.at(-1);
  replace(body,
    h('p', { id: 'history-latest' }, `Last 10 s (to ${time(last.at)}): `,
      `sent ${rate(last.sent)}/s, delivered ${rate(last.delivered)}/s, acked ${rate(last.acked)}/s, `,
      `retried ${rate(last.retried)}/s, dead-lettered ${rate(last.dead)}/s; `,
      `lateness p50 ${lateness(last.span, 'lateness_p50_le_ms')}, p99 ${lateness(last.span, 'lateness_p99_le_ms')}.`),
    chart('Messages per second', list, [['sent', 'Sent'], ['delivered', 'Delivered'], ['acked', 'Acked']], (v) => v),
    chart('Retries and dead letters per second', list, [['retried', 'Retried'], ['dead', 'Dead-lettered']], (v) => v),
    chart('Lateness p50 and p99 (ms)', list, [['p50', 'p50'], ['p99', 'p99']], (v) => v));
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
