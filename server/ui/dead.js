// A queue's dead letters: why each died and its last error; requeue or purge one, a selection,
// or all, each after a confirmation that states the count.
import { api, queuePath } from './api.js';
import { denied } from './access.js';
import { actionButton, confirmDialog, flash, h, replace } from './dom.js';
import { count, preview, time } from './format.js';
import { handleError } from './app.js';
import { queueLinks } from './queue.js';

const kPage = 100;

export async function renderDead(ctx, queue) {
  const q = encodeURIComponent(queue);
  const why = denied('admin', queue);
  const body = h('tbody');
  const pager = h('div', { class: 'pager' });
  const total = h('span');
  const selectAll = h('input', { type: 'checkbox', 'aria-label': 'Select every dead letter on this page', disabled: !!why });
  replace(ctx.main,
    queueLinks(queue, `#/q/${q}/dead`),
    h('h1', null, `Dead letters of ${queue}`),
    h('p', null, total),
    h('div', { class: 'toolbar' },
      actionButton('Requeue selected', why, () => run('requeue', 'selected')),
      actionButton('Purge selected', why, () => run('purge', 'selected'), { class: 'danger' }),
      actionButton('Requeue all', why, () => run('requeue', 'all')),
      actionButton('Purge all', why, () => run('purge', 'all'), { class: 'danger' })),
    h('div', { class: 'scroll' }, h('table', { class: 'data', id: 'dead' },
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, selectAll), ['Id', 'Dead since', 'Reason', 'Last error', 'Attempts', 'Payload'].map((c) => h('th', { scope: 'col' }, c)))),
      body)),
    pager);
  selectAll.addEventListener('change', () => {
    for (const box of body.querySelectorAll('input[type=checkbox]')) box.checked = selectAll.checked;
  });

  let deadCount = 0;
  const cursors = [null];
  let page = 0;
  const show = async (p) => {
    page = p;
    const cursor = cursors[p];
    const [r, detail] = await Promise.all([
      api('GET', `${queuePath(queue)}/messages?state=dead&limit=${kPage}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
      api('GET', queuePath(queue)),
    ]);
    if (!ctx.alive) return;
    deadCount = detail.stats.dead;
    total.textContent = `${count(deadCount)} dead letter${deadCount === 1 ? '' : 's'}.`;
    selectAll.checked = false;
    replace(body, r.messages.length === 0
      ? h('tr', null, h('td', { colspan: 7, class: 'muted' }, 'None.'))
      : r.messages.map((m) => h('tr', null,
        h('td', null, h('input', { type: 'checkbox', value: m.id, 'aria-label': `Select ${m.id}`, disabled: !!why })),
        h('th', { scope: 'row' }, h('a', { href: `#/q/${q}/m/${encodeURIComponent(m.id)}` }, m.id)),
        h('td', null, time(m.dead_at_ms)),
        h('td', null, m.dead_reason ?? ''),
        h('td', { class: 'error-text' }, m.last_error ?? ''),
        h('td', { class: 'num' }, count(m.attempts)),
        h('td', { class: 'payload' }, preview(m)))));
    if (r.next_cursor) cursors[p + 1] = r.next_cursor;
    replace(pager,
      h('button', { type: 'button', disabled: p === 0, on: { click: () => show(p - 1).catch(handleError) } }, 'Previous page'),
      h('span', null, ` page ${p + 1} `),
      h('button', { type: 'button', disabled: !r.next_cursor, on: { click: () => show(p + 1).catch(handleError) } }, 'Next page'));
  };

  async function run(verb, which) {
    const ids = [...body.querySelectorAll('input[type=checkbox]:checked')].map((b) => b.value);
    const n = which === 'all' ? deadCount : ids.length;
    if (n === 0) {
      flash(which === 'all' ? 'There are no dead letters.' : 'Select the dead letters first.', 'error');
      return;
    }
    const Verb = verb === 'requeue' ? 'Requeue' : 'Purge';
    const what = `${count(n)} dead letter${n === 1 ? '' : 's'}`;
    const question = verb === 'requeue'
      ? `${Verb} ${what} of ${queue}? They will be delivered again.`
      : `${Verb} ${what} of ${queue}? They will be deleted for good.`;
    if (!(await confirmDialog(question, `${Verb} ${what}`))) return;
    try {
      const r = await api('POST', `${queuePath(queue)}/dead/${verb}`, which === 'all' ? { all: true } : { ids });
      const done = verb === 'requeue' ? r.requeued : r.purged;
      flash(`${verb === 'requeue' ? 'Requeued' : 'Purged'} ${count(done)} dead letter${done === 1 ? '' : 's'}.`);
      cursors.length = 1;
      await show(0);
    } catch (e) {
      handleError(e);
    }
  }
  await show(page);
}
