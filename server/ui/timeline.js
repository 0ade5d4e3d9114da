// Scheduled messages by due-time bucket (GET /v1/queues/{queue}/timeline) as a bar chart, an
// SVG built with DOM calls, and the same figures as a table for screen readers; over the next
// hour, day or week. Hidden while the server has no such route (404) or the token may not
// read it.
import { api, queuePath } from './api.js';
import { h, replace, svg } from './dom.js';
import { count, duration, relative, time } from './format.js';

const kWidth = 600;
const kHeight = 120;
// One bucket width and count a range: few enough bars to read, one ZCOUNT each.
const kRanges = [
  ['hour', 'Next hour', '1m', 60],
  ['day', 'Next day', '30m', 48],
  ['week', 'Next week', '6h', 28],
];

export function renderTimeline(ctx, section, queue) {
  let missing = false;
  let range = kRanges[0];
  const select = h('select', { name: 'range', 'aria-label': 'Range of the timeline', on: { change: () => {
    range = kRanges.find(([key]) => key === select.value) ?? kRanges[0];
    load().catch(() => {});
  } } }, kRanges.map(([key, label]) => h('option', { value: key }, label)));
  const body = h('div');
  const title = h('div', { class: 'panel-head' }, h('h2', { id: 'timeline-h' }, 'Timeline of scheduled messages'), select);
  replace(section, title, body);

  const load = async () => {
    if (missing) return;
    let t;
    try {
      t = await api('GET', `${queuePath(queue)}/timeline?bucket=${range[2]}&buckets=${range[3]}`);
    } catch (e) {
      if (e.status === 404 || e.status === 403 || e.status === 405) {
        missing = true;
        section.hidden = true;
        return;
      }
      throw e;
    }
    if (!ctx.alive) return;
    section.hidden = false;
    draw(body, t);
  };
  ctx.every(5000, load);
}

function draw(body, t) {
  const buckets = t.buckets ?? [];
  const max = Math.max(1, ...buckets.map((b) => b.count));
  const total = buckets.reduce((n, b) => n + b.count, 0);
  const gap = 2;
  const barWidth = buckets.length ? kWidth / buckets.length : kWidth;
  const chart = svg('svg', { viewBox: `0 0 ${kWidth} ${kHeight}`, preserveAspectRatio: 'none', class: 'timeline', role: 'img',
    'aria-label': `${count(total)} scheduled messages in ${buckets.length} buckets` },
  buckets.map((b, i) => {
    const height = b.count === 0 ? 0 : Math.max(2, (b.count / max) * (kHeight - 4));
    return svg('rect', { x: i * barWidth + gap / 2, y: kHeight - height, width: Math.max(1, barWidth - gap), height, class: 'bar' },
      svg('title', null, `${count(b.count)} due ${time(b.from_ms)} to ${time(b.to_ms)}`));
  }));
  const first = buckets[0];
  const last = buckets[buckets.length - 1];
  const axis = first ? h('div', { class: 'axis' },
    h('span', null, Math.abs(first.from_ms - t.now_ms) < 1000 ? 'now' : relative(first.from_ms, t.now_ms)),
    h('span', null, `bars of ${duration(t.bucket_ms ?? first.to_ms - first.from_ms)}, the tallest ${count(max)}`),
    h('span', null, relative(last.to_ms, t.now_ms))) : null;
  const extra = [];
  if (t.ready !== undefined) extra.push(`${count(t.ready)} due already (ready)`);
  if (t.later !== undefined) extra.push(`${count(t.later)} due after ${first ? time(last.to_ms) : 'the range'}`);
  const table = h('details', null, h('summary', null, 'As a table'),
    h('table', { class: 'data' },
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'From'), h('th', { scope: 'col' }, 'To'), h('th', { scope: 'col', class: 'num' }, 'Messages'))),
      h('tbody', null, buckets.map((b) => h('tr', null, h('td', null, time(b.from_ms)), h('td', null, time(b.to_ms)), h('td', { class: 'num' }, count(b.count)))))));
  const open = body.querySelector('details')?.open;
  replace(body, chart, axis, extra.length ? h('p', { class: 'muted small' }, `${count(total)} in the range; ${extra.join('; ')}.`) : null, table);
  if (open) table.open = true;
}
