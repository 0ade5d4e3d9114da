// The operators' Redis panel on the overview: each primary's version, memory, eviction policy
// and clients, and the engine the operations run as (GET /v1/redis, every 10 s: one INFO a
// primary). A policy that can evict is a warning: an evicted key is a lost message.
import { api } from './api.js';
import { h, replace } from './dom.js';
import { count } from './format.js';

export function bytes(n) {
  if (!n) return '0 B';
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let v = Number(n);
  let u = 0;
  while (v >= 1024 && u < units.length - 1) { v /= 1024; u += 1; }
  return `${v >= 10 || u === 0 ? v.toFixed(0) : v.toFixed(1)} ${units[u]}`;
}

export function renderRedisPanel(ctx, panel) {
  ctx.every(10000, async () => {
    const info = await api('GET', '/v1/redis');
    if (!ctx.alive) return;
    const mode = info.engine.mode === 'functions'
      ? 'functions (FCALL)'
      : `scripts (EVALSHA): ${info.engine.reason}`;
    const rows = info.nodes.map((n) => h('tr', null,
      h('th', { scope: 'row' }, n.address),
      h('td', null, n.version),
      h('td', { class: 'num' }, bytes(n.used_memory)),
      h('td', { class: 'num' }, n.maxmemory ? bytes(n.maxmemory) : 'no limit'),
      h('td', { class: n.evicts ? 'warn' : null }, n.maxmemory_policy || '—'),
      h('td', { class: 'num' }, count(n.connected_clients))));
    const evicting = info.nodes.filter((n) => n.evicts);
    replace(panel,
      h('h2', { id: 'redis-h' }, 'Redis'),
      h('p', null, 'Engine: ', mode),
      evicting.length > 0
        ? h('p', { class: 'warn', role: 'alert' },
          `${evicting.map((n) => n.address).join(', ')} can evict keys when memory runs out `
          + '(maxmemory-policy is not noeviction): an evicted key is a lost message.')
        : null,
      h('div', { class: 'scroll' },
        h('table', { class: 'data' },
          h('thead', null, h('tr', null,
            ['Primary', 'Version', 'Memory', 'Max memory', 'Eviction policy', 'Clients'].map(
              (c, i) => h('th', { scope: 'col', class: i === 2 || i === 3 || i === 5 ? 'num' : null }, c)))),
          h('tbody', null, rows))));
  });
}
