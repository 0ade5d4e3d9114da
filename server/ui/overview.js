// Every queue the token may see: counts by state, rates and lateness over the last hour (from
// the history in Redis, which the server records for the queues it shows), and the age of the
// oldest ready message, polled once a second from GET /v1/overview (one shared read of Redis a
// second per server, however many pages are open). Rows are updated in place, so keyboard
// focus stays put.
import { api } from './api.js';
import { h, replace } from './dom.js';
import { count, duration, lateness, rate } from './format.js';
import { renderRedisPanel } from './redis.js';

const kColumns = ['Scheduled', 'Ready', 'In flight', 'Dead', 'Sent/s', 'Delivered/s', 'Acked/s', 'Late p50', 'Late p99', 'Oldest ready'];

export function renderOverview(ctx) {
  const body = h('tbody');
  const empty = h('p', { class: 'muted', hidden: true }, 'No queues yet: a queue appears once something is sent to it.');
  const updated = h('p', { class: 'muted small', 'aria-live': 'off' });
  const legend = h('p', { class: 'muted small' },
    'Rates and lateness are over the last hour, or since the history began when it is younger; ',
    'lateness is how long after its due time a message was delivered (the bound of its bucket).');
  const redis = h('section', { class: 'panel', id: 'redis', 'aria-labelledby': 'redis-h' });
  replace(ctx.main,
    h('h1', null, 'Queues'),
    h('div', { class: 'scroll' },
      h('table', { class: 'data', id: 'queues' },
        h('caption', { class: 'sr-only' }, 'Queues, counts by state, rates and lateness over the last hour, refreshed every second'),
        h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Queue'), kColumns.map((c) => h('th', { scope: 'col', class: 'num' }, c)))),
        body)),
    legend, empty, updated, redis);
  renderRedisPanel(ctx, redis);

  const rows = new Map();  // queue -> cells
  ctx.every(1000, async () => {
    const { queues } = await api('GET', '/v1/overview');
    if (!ctx.alive) return;
    const seen = new Set();
    queues.forEach((q) => {
      seen.add(q.queue);
      let cells = rows.get(q.queue);
      if (!cells) {
        cells = kColumns.map(() => h('td', { class: 'num' }));
        const tr = h('tr', { 'data-queue': q.queue },
          h('th', { scope: 'row' }, h('a', { href: `#/q/${encodeURIComponent(q.queue)}` }, q.queue)), cells);
        rows.set(q.queue, cells);
        insertSorted(body, tr, q.queue);
      }
      const hour = q.hour;
      const values = [count(q.scheduled), count(q.ready), count(q.in_flight), count(q.dead),
        rate(hour?.sent_per_s), rate(hour?.delivered_per_s), rate(hour?.acked_per_s),
        lateness(hour, 'lateness_p50_le_ms'), lateness(hour, 'lateness_p99_le_ms'),
        q.oldest_ready_age_ms === null ? '—' : duration(q.oldest_ready_age_ms)];
      values.forEach((v, k) => { if (cells[k].textContent !== v) cells[k].textContent = v; });
      const span = hour ? `over ${duration(hour.to_ms - hour.from_ms)}`
        : q.recording ? 'the history has no point yet' : 'not recorded: past --history-max-queues';
      [4, 5, 6, 7, 8].forEach((k) => { if (cells[k].title !== span) cells[k].title = span; });
      cells[3].classList.toggle('warn', q.dead > 0);
    });
    for (const [name, cells] of rows) {
      if (!seen.has(name)) { cells[0].parentElement.remove(); rows.delete(name); }
    }
    empty.hidden = queues.length > 0;
    updated.textContent = `Updated ${new Date().toLocaleTimeString()}`;
  });
}

function insertSorted(body, tr, name) {
  for (const row of body.rows) {
    if (row.dataset.queue > name) { body.insertBefore(tr, row); return; }
  }
  body.append(tr);
}
