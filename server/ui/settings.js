// A queue's settings, editable with the admin scope (PATCH /v1/queues/{queue}). Shown once,
// not polled, so that an edit under way is not overwritten.
import { api, queuePath } from './api.js';
import { denied } from './access.js';
import { actionButton, field, flash, h, replace } from './dom.js';
import { handleError } from './app.js';

const kFields = [
  ['max_attempts', 'Max attempts', (s) => s.max_attempts, 'integer'],
  ['initial', 'Backoff initial (ms)', (s) => s.backoff.initial_ms, 'integer'],
  ['max', 'Backoff max (ms)', (s) => s.backoff.max_ms, 'integer'],
  ['multiplier', 'Backoff multiplier', (s) => s.backoff.multiplier, 'number'],
  ['jitter', 'Backoff jitter (0 to 1)', (s) => s.backoff.jitter, 'number'],
  ['dead_max_count', 'Dead letters kept at most (0: no bound)', (s) => s.dead_max_count, 'integer'],
  ['dead_max_age', 'Dead letters kept for (ms, 0: no bound)', (s) => s.dead_max_age_ms, 'integer'],
];

export function renderSettings(ctx, section, queue, settings) {
  const why = denied('admin', queue);
  const inputs = {};
  const form = h('form', { class: 'settings', on: { submit: (e) => { e.preventDefault(); save(); } } },
    h('div', { class: 'grid' }, kFields.map(([key, label, get, kind]) => {
      inputs[key] = h('input', { name: key, type: 'number', step: kind === 'integer' ? 1 : 'any', min: 0, value: get(settings), disabled: !!why });
      return field(label, inputs[key]);
    })),
    actionButton('Save settings', why, null, { type: 'submit' }));
  replace(section, h('h2', { id: 'settings-h' }, 'Settings'), form);

  async function save() {
    const n = (k) => Number(inputs[k].value);
    const body = {
      max_attempts: n('max_attempts'),
      backoff: { initial: n('initial'), max: n('max'), multiplier: n('multiplier'), jitter: n('jitter') },
      dead_max_count: n('dead_max_count'),
      dead_max_age: n('dead_max_age'),
    };
    try {
      const r = await api('PATCH', queuePath(queue), body);
      flash(`Saved the settings of ${queue}.`);
      if (ctx.alive) renderSettings(ctx, section, queue, r.settings);
    } catch (e) {
      handleError(e);
    }
  }
}
