// What the caller's token may do (GET /v1/token), so that a button it may not use is disabled
// and says why. The server checks every call all the same: this only spares a useless click.
import { api, ApiError } from './api.js';

export const kScopes = ['send', 'consume', 'read', 'schedule', 'admin'];

let me = null;

// Loads who the token is. Throws ApiError 401 when a token is needed (or refused).
export async function loadAccess() {
  try {
    me = { known: true, ...(await api('GET', '/v1/token')) };
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 404) throw e;
    // A server without GET /v1/token: whether a token is needed shows in a listing (401), and
    // what it may do only in each action's answer.
    await api('GET', '/v1/queues');
    me = { known: false, auth: null, name: null, scopes: [...kScopes], queues: ['*'] };
  }
  return me;
}

export const access = () => me;
export const forget = () => { me = null; };

// A queue pattern of the auth file: an exact name, a prefix ending in an unescaped `*`, or `*`;
// `\*` is a literal star and `\\` a literal backslash.
export function covers(pattern, queue) {
  let literal = '';
  for (let i = 0; i < pattern.length; ++i) {
    const c = pattern[i];
    if (c === '\\' && i + 1 < pattern.length) {
      literal += pattern[++i];
    } else if (c === '*' && i === pattern.length - 1) {
      return queue.startsWith(literal);
    } else {
      literal += c;
    }
  }
  return queue === literal;
}

function hasScope(scope) {
  const scopes = me?.scopes ?? [];
  return scopes.includes(scope) || (scopes.includes('admin') && (scope === 'read' || scope === 'schedule'));
}

// Why the token may not do `scope` on `queue`, or null when it may.
export function denied(scope, queue) {
  if (!me) return 'not signed in';
  const who = me.name ? `the token "${me.name}"` : 'this token';
  if (!hasScope(scope)) return `needs the ${scope} scope; ${who} has ${(me.scopes ?? []).join(', ') || 'none'}`;
  if (queue !== undefined && !(me.queues ?? []).some((p) => covers(p, queue))) {
    return `${who} does not cover the queue "${queue}"`;
  }
  return null;
}
