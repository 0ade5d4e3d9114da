// A queue's push target: where its messages go, its limits and the last outcome. Never a header
// value or a secret: the API has none to give. Reading it needs admin (it names credentials'
// whereabouts), so other tokens see why it is not shown.
import { api, queuePath } from './api.js';
import { denied } from './access.js';
import { h, replace } from './dom.js';
import { count, time } from './format.js';

export async function renderPushTarget(ctx, section, queue) {
  const title = h('h2', { id: 'push-h' }, 'Push target');
  const why = denied('admin', queue);
  if (why) {
    replace(section, title, h('p', { class: 'muted' }, `Not shown: reading a push target ${why}.`));
    return;
  }
  let t;
  try {
    t = await api('GET', `${queuePath(queue)}/push-target`);
  } catch (e) {
    replace(section, title, h('p', { class: 'muted' }, e.status === 404 ? 'None: consumers lease this queue\'s messages.' : `Not shown: ${e.message}`));
    return;
  }
  if (!ctx.alive) return;
  const row = (label, value) => h('div', null, h('dt', null, label), h('dd', null, value));
  const last = t.last ? `${t.last.status || 'no answer'} at ${time(t.last.at_ms)}${t.last.error ? `: ${t.last.error}` : ''}` : 'nothing pushed yet';
  replace(section, title, h('dl', { class: 'facts' },
    row('URL', h('code', null, `${t.method} ${t.url}`)),
    row('Content-Type', t.content_type),
    row('Headers', t.header_names.length ? t.header_names.join(', ') : 'none'),
    row('Requests at once', count(t.max_in_flight)),
    row('Rate', t.rate ? `${t.rate}/s` : 'no limit'),
    row('Timeout', `${count(t.request_timeout_ms)} ms`),
    row('Signed', t.secrets ? `yes, ${t.secrets} secret(s)` : 'no'),
    row('Last outcome', last)));
}
