// One queue: counts and lateness (polled), pause/resume, a test send, and the panels of its
// timeline, settings, schedules and push target.
import { api, queuePath } from './api.js';
import { denied } from './access.js';
import { actionButton, field, flash, h, replace } from './dom.js';
import { count, duration, rate, relative, time } from './format.js';
import { Rates } from './rates.js';
import { handleError } from './app.js';
import { renderTimeline } from './timeline.js';
import { renderHistory } from './history.js';
import { renderSettings } from './settings.js';
import { renderSchedules } from './schedules.js';
import { renderPushTarget } from './push.js';

const kStates = [['scheduled', 'Scheduled'], ['ready', 'Ready'], ['in_flight', 'In flight'], ['dead', 'Dead']];

export function queueLinks(queue, here) {
  const q = encodeURIComponent(queue);
  const link = (href, label) => (href === here ? h('a', { href, 'aria-current': 'page' }, label) : h('a', { href }, label));
  return h('nav', { class: 'crumbs', 'aria-label': 'Queue' },
    h('a', { href: '#/' }, 'Queues'), ' / ', link(`#/q/${q}`, queue), ' · ',
    kStates.slice(0, 3).map(([s, label]) => [link(`#/q/${q}/messages/${s}`, label), ' · ']),
    link(`#/q/${q}/dead`, 'Dead letters'));
}

export async function renderQueue(ctx, queue) {
  const q = encodeURIComponent(queue);
  const counts = kStates.map(() => h('dd'));
  const paused = h('span', { class: 'badge' });
  const pauseSlot = h('span');
  const facts = { lateness: h('dd', { id: 'lateness' }, '…'), oldest: h('dd'), next: h('dd'), oldestDue: h('dd'), sent: h('dd'), delivered: h('dd'), acked: h('dd') };
  const timeline = h('section', { class: 'panel', id: 'timeline', 'aria-labelledby': 'timeline-h', hidden: true });
  const history = h('section', { class: 'panel', id: 'history', 'aria-labelledby': 'history-h' });
  const settings = h('section', { class: 'panel', id: 'settings', 'aria-labelledby': 'settings-h' });
  const schedules = h('section', { class: 'panel', id: 'schedules', 'aria-labelledby': 'schedules-h' });
  const push = h('section', { class: 'panel', id: 'push', 'aria-labelledby': 'push-h' });

  replace(ctx.main,
    queueLinks(queue, `#/q/${q}`),
    h('h1', null, queue, ' ', paused),
    h('div', { class: 'toolbar' }, pauseSlot),
    h('section', { class: 'panel', 'aria-labelledby': 'counts-h' },
      h('h2', { id: 'counts-h' }, 'Messages'),
      h('dl', { class: 'counts' }, kStates.map(([s, label], i) => h('div', null,
        h('dt', null, h('a', { href: s === 'dead' ? `#/q/${q}/dead` : `#/q/${q}/messages/${s}` }, label)), counts[i]))),
      h('dl', { class: 'facts' },
        h('div', null, h('dt', null, 'Delivered after their due time (last hour)'), facts.lateness),
        h('div', null, h('dt', null, 'Oldest ready message waited'), facts.oldest),
        h('div', null, h('dt', null, 'Next due'), facts.next),
        h('div', null, h('dt', null, 'Oldest not delivered was due'), facts.oldestDue),
        h('div', null, h('dt', null, 'Sent/s'), facts.sent),
        h('div', null, h('dt', null, 'Delivered/s'), facts.delivered),
        h('div', null, h('dt', null, 'Acked/s'), facts.acked))),
    timeline,
    history,
    h('div', { class: 'panels' }, settings, sendPanel(queue), schedules, push));

  const rates = new Rates();
  let detail = null;
  let pausedShown;
  const refresh = async () => {
    detail = await api('GET', queuePath(queue));
    if (!ctx.alive) return;
    const s = detail.stats;
    kStates.forEach(([state], i) => { counts[i].textContent = count(s[state]); });
    facts.oldest.textContent = s.ready > 0 ? duration(s.oldest_ready_age_ms) : '— (none ready)';
    facts.next.textContent = s.next_due_ms === null ? '—' : `${time(s.next_due_ms)} (${relative(s.next_due_ms, s.now_ms)})`;
    facts.oldestDue.textContent = s.oldest_due_ms === null ? '—' : `${time(s.oldest_due_ms)} (${relative(s.oldest_due_ms, s.now_ms)})`;
    const r = rates.update(queue, detail);
    facts.sent.textContent = rate(r?.sent);
    facts.delivered.textContent = rate(r?.delivered);
    facts.acked.textContent = rate(r?.acked);
    const isPaused = detail.settings.paused;
    paused.textContent = isPaused ? 'paused' : 'active';
    paused.className = `badge ${isPaused ? 'warn' : 'ok'}`;
    if (pausedShown !== isPaused) {
      pausedShown = isPaused;
      replace(pauseSlot, actionButton(isPaused ? 'Resume' : 'Pause', denied('admin', queue), () => setPaused(!isPaused)));
    }
  };
  const setPaused = async (value) => {
    try {
      await api('PATCH', queuePath(queue), { paused: value });
      flash(value ? `Paused ${queue}: consumers lease nothing until it resumes.` : `Resumed ${queue}.`);
      await refresh();
    } catch (e) {
      handleError(e);
    }
  };
  await refresh();
  ctx.every(1000, refresh);
  renderSettings(ctx, settings, queue, detail.settings);
  renderTimeline(ctx, timeline, queue);
  renderHistory(ctx, history, queue, facts.lateness);
  renderSchedules(ctx, schedules, queue);
  renderPushTarget(ctx, push, queue);
}

function sendPanel(queue) {
  const why = denied('send', queue);
  const payload = h('textarea', { name: 'payload', rows: 2, disabled: !!why }, 'test message');
  const delay = h('input', { name: 'delay', placeholder: '0s, 10s, 5m, 1h30m', disabled: !!why, size: 12 });
  const id = h('input', { name: 'id', placeholder: 'optional', disabled: !!why, size: 16 });
  const submit = actionButton('Send', why, null, { type: 'submit' });
  const form = h('form', { class: 'send', on: { submit: async (e) => {
    e.preventDefault();
    const body = { payload: payload.value };
    if (delay.value.trim()) body.delay = delay.value.trim();
    if (id.value.trim()) body.id = id.value.trim();
    try {
      const r = await api('POST', `${queuePath(queue)}/messages`, body);
      flash(r.duplicate ? `A message ${r.id} exists already: nothing sent.` : `Sent ${r.id}, due ${time(r.due_ms)}.`);
    } catch (err) {
      handleError(err);
    }
  } } }, field('Payload', payload), h('div', { class: 'row' }, field('Delay', delay), field('Id', id)), submit);
  return h('section', { class: 'panel', 'aria-labelledby': 'send-h' }, h('h2', { id: 'send-h' }, 'Send a test message'), form);
}
