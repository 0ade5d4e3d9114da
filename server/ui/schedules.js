// A queue's recurring schedules: the list, the next occurrences of one, pause/resume and
// trigger (the schedule scope).
import { api, queuePath, seg } from './api.js';
import { denied } from './access.js';
import { actionButton, flash, h, replace } from './dom.js';
import { duration, time } from './format.js';
import { handleError } from './app.js';

export function renderSchedules(ctx, section, queue) {
  const load = async () => {
    const { schedules } = await api('GET', `${queuePath(queue)}/schedules?limit=100`);
    if (!ctx.alive) return;
    draw(schedules);
  };
  const act = async (name, verb, done) => {
    try {
      const r = await api('POST', `${queuePath(queue)}/schedules/${seg(name)}/${verb}`);
      flash(done(r));
      await load();
    } catch (e) {
      handleError(e);
    }
  };
  const why = denied('schedule', queue);
  const draw = (schedules) => {
    const title = h('h2', { id: 'schedules-h' }, 'Schedules');
    if (schedules.length === 0) {
      replace(section, title, h('p', { class: 'muted' }, 'No recurring schedules (delayq schedule, or PUT .../schedules/NAME).'));
      return;
    }
    const next = h('div', { class: 'next' });
    const rows = schedules.map((s) => h('tr', null,
      h('th', { scope: 'row' }, s.name),
      h('td', null, h('code', null, s.spec.cron ?? `every ${duration(s.spec.every_ms)}`), s.spec.tz && s.spec.tz !== 'UTC' ? ` (${s.spec.tz})` : ''),
      h('td', null, s.paused ? 'paused' : 'active'),
      h('td', null, time(s.next_ms)),
      h('td', null, s.last_outcome, s.last_dead_reason ? ` (${s.last_dead_reason})` : ''),
      h('td', { class: 'num' }, s.runs),
      h('td', { class: 'actions' },
        h('button', { type: 'button', on: { click: () => showNext(s.name, next) } }, 'Next'),
        actionButton(s.paused ? 'Resume' : 'Pause', why, () => act(s.name, s.paused ? 'resume' : 'pause', () => `${s.paused ? 'Resumed' : 'Paused'} the schedule ${s.name}.`)),
        actionButton('Trigger', why, () => act(s.name, 'trigger', (r) => `Triggered ${s.name}: sent ${r.id}.`)))));
    replace(section, title,
      h('div', { class: 'scroll' }, h('table', { class: 'data' },
        h('thead', null, h('tr', null, ['Name', 'When', 'State', 'Next', 'Last outcome', 'Runs', 'Actions'].map((c) => h('th', { scope: 'col' }, c)))),
        h('tbody', null, rows))),
      next);
  };
  const showNext = async (name, into) => {
    try {
      const { occurrences } = await api('GET', `${queuePath(queue)}/schedules/${seg(name)}/next?count=5`);
      replace(into, h('h3', null, `Next occurrences of ${name}`), h('ol', null, occurrences.map((o) => h('li', null, time(o.ms), ' ', h('span', { class: 'muted' }, o.time)))));
    } catch (e) {
      handleError(e);
    }
  };
  load().catch(handleError);
}
