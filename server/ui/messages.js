// Browse one state of a queue a page at a time (cursor paging), or find a message by id.
import { api, queuePath } from './api.js';
import { field, h, replace } from './dom.js';
import { count, preview, relative, time } from './format.js';
import { queueLinks } from './queue.js';

const kPage = 50;
const kLabels = { scheduled: 'Scheduled', ready: 'Ready', in_flight: 'In flight', dead: 'Dead' };

export function findForm(queue) {
  const input = h('input', { name: 'id', required: true, size: 24, autocomplete: 'off' });
  return h('form', { class: 'find', role: 'search', on: { submit: (e) => {
    e.preventDefault();
    location.hash = `#/q/${encodeURIComponent(queue)}/m/${encodeURIComponent(input.value.trim())}`;
  } } }, field('Find by id', input), h('button', { type: 'submit' }, 'Find'));
}

export async function renderMessages(ctx, queue, state) {
  if (state === 'dead') {
    location.replace(`#/q/${encodeURIComponent(queue)}/dead`);
    return;
  }
  const q = encodeURIComponent(queue);
  const body = h('tbody');
  const pager = h('div', { class: 'pager' });
  replace(ctx.main,
    queueLinks(queue, `#/q/${q}/messages/${state}`),
    h('h1', null, `${kLabels[state] ?? state} messages of ${queue}`),
    findForm(queue),
    h('div', { class: 'scroll' }, h('table', { class: 'data', id: 'messages' },
      h('thead', null, h('tr', null, ['Id', 'Due', 'Attempts', 'Lease ends', 'Payload'].map((c) => h('th', { scope: 'col' }, c)))),
      body)),
    pager);
  const cursors = [null];  // the cursor of each page seen, for going back
  const show = async (page) => {
    const cursor = cursors[page];
    const r = await api('GET', `${queuePath(queue)}/messages?state=${state}&limit=${kPage}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    if (!ctx.alive) return;
    const now = Date.now();
    replace(body, r.messages.length === 0
      ? h('tr', null, h('td', { colspan: 5, class: 'muted' }, 'None.'))
      : r.messages.map((m) => h('tr', null,
        h('th', { scope: 'row' }, h('a', { href: `#/q/${q}/m/${encodeURIComponent(m.id)}` }, m.id)),
        h('td', null, time(m.due_ms), ' ', h('span', { class: 'muted' }, relative(m.due_ms, now))),
        h('td', { class: 'num' }, `${count(m.attempts)} / ${count(m.max_attempts)}`),
        h('td', null, time(m.lease_deadline_ms)),
        h('td', { class: 'payload' }, preview(m)))));
    if (r.next_cursor) cursors[page + 1] = r.next_cursor;
    const prev = h('button', { type: 'button', disabled: page === 0, on: { click: () => show(page - 1) } }, 'Previous page');
    const next = h('button', { type: 'button', disabled: !r.next_cursor, on: { click: () => show(page + 1) } }, 'Next page');
    replace(pager, prev, h('span', null, ` page ${page + 1} `), next);
  };
  await show(0);
}
