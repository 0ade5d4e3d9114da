// One message: its payload (text, JSON pretty-printed, or hex for bytes that are not UTF-8),
// attempts, times and last error; cancel and reschedule (send), requeue and purge (admin).
import { api, queuePath, seg } from './api.js';
import { denied } from './access.js';
import { actionButton, confirmDialog, field, flash, h, replace } from './dom.js';
import { count, payloadView, relative, time } from './format.js';
import { handleError } from './app.js';
import { queueLinks } from './queue.js';
import { findForm } from './messages.js';

export async function renderMessage(ctx, queue, id) {
  const q = encodeURIComponent(queue);
  const path = `${queuePath(queue)}/messages/${seg(id)}`;
  let m;
  try {
    m = await api('GET', path);
  } catch (e) {
    if (e.status !== 404) throw e;
    replace(ctx.main, queueLinks(queue, ''), h('h1', null, 'No such message'),
      h('p', null, `The queue ${queue} holds no message "${id}" (acked, cancelled, purged, or never sent).`), findForm(queue));
    return;
  }
  const now = Date.now();
  const row = (label, value) => h('div', null, h('dt', null, label), h('dd', null, value));
  const when = (ms) => (ms === null ? '—' : `${time(ms)} (${relative(ms, now)})`);
  const view = payloadView(m);
  const pending = m.state === 'scheduled' || m.state === 'ready';
  const sendWhy = denied('send', queue) ?? (pending ? null : `only a scheduled or ready message can be changed; this one is ${m.state}`);
  const adminWhy = denied('admin', queue);
  const delay = h('input', { name: 'delay', placeholder: '10s, 5m, 1h', size: 10, disabled: !!sendWhy });

  const act = async (method, suffix, body, done) => {
    try {
      const r = await api(method, `${path}${suffix}`, body);
      flash(done(r));
      if (ctx.alive) await renderMessage(ctx, queue, id);
    } catch (e) {
      handleError(e);
    }
  };
  const dead = async (verb) => {
    if (!(await confirmDialog(`${verb === 'requeue' ? 'Requeue' : 'Purge'} the dead letter ${id}?`, verb === 'requeue' ? 'Requeue' : 'Purge'))) return;
    try {
      const r = await api('POST', `${queuePath(queue)}/dead/${verb}`, { ids: [id] });
      flash(verb === 'requeue' ? `Requeued ${r.requeued} message.` : `Purged ${r.purged} message.`);
      location.hash = `#/q/${q}/dead`;
    } catch (e) {
      handleError(e);
    }
  };

  const actions = m.state === 'dead'
    ? [actionButton('Requeue', adminWhy, () => dead('requeue')), actionButton('Purge', adminWhy, () => dead('purge'), { class: 'danger' })]
    : [actionButton('Cancel message', sendWhy, async () => {
      if (await confirmDialog(`Cancel the message ${id}? It will not be delivered.`, 'Cancel message')) {
        try {
          await api('DELETE', path);
          flash(`Cancelled ${id}.`);
          location.hash = `#/q/${q}/messages/${m.state}`;
        } catch (e) {
          handleError(e);
        }
      }
    }, { class: 'danger' }),
    h('form', { class: 'inline', on: { submit: (e) => {
      e.preventDefault();
      act('POST', '/reschedule', { delay: delay.value.trim() || '0s' }, (r) => `Rescheduled ${id}: due ${time(r.due_ms)}.`);
    } } }, field('Delay from now', delay), actionButton('Reschedule', sendWhy, null, { type: 'submit' }))];

  replace(ctx.main,
    queueLinks(queue, ''),
    h('h1', null, 'Message ', h('code', null, id)),
    h('dl', { class: 'facts', id: 'message' },
      row('State', m.state),
      row('Due', when(m.due_ms)),
      row('Attempts', `${count(m.attempts)} of ${count(m.max_attempts)}`),
      row('Lease ends', when(m.lease_deadline_ms)),
      row('Expires', when(m.expire_at_ms)),
      m.state === 'dead' ? row('Dead since', when(m.dead_at_ms)) : null,
      m.dead_reason ? row('Dead because', m.dead_reason) : null,
      m.last_error ? row('Last error', h('span', { class: 'error-text' }, m.last_error)) : null),
    h('h2', null, `Payload (${view.kind === 'hex' ? 'binary, in hex' : view.kind === 'json' ? 'JSON' : 'text'})`),
    h('pre', { class: 'payload', id: 'payload', tabindex: 0 }, view.text),
    h('div', { class: 'toolbar' }, actions));
}
