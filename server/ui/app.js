// The dashboard's entry: signs in when the server needs a token, then routes by the URL's hash
// (#/, #/q/QUEUE, ...) to one view at a time. A view polls through ctx.every, which stops when
// the user goes elsewhere.
import { ApiError, token } from './api.js';
import { access, forget, loadAccess } from './access.js';
import { clearStaleFlash, flash, h, replace } from './dom.js';
import { renderLogin } from './login.js';
import { renderOverview } from './overview.js';
import { renderQueue } from './queue.js';
import { renderMessages } from './messages.js';
import { renderMessage } from './message.js';
import { renderDead } from './dead.js';

const routes = [
  [/^#\/login$/, renderLogin],
  [/^#\/q\/([^/]+)\/messages\/([a-z_]+)$/, (ctx, q, state) => renderMessages(ctx, q, state)],
  [/^#\/q\/([^/]+)\/m\/([^/]+)$/, (ctx, q, id) => renderMessage(ctx, q, id)],
  [/^#\/q\/([^/]+)\/dead$/, (ctx, q) => renderDead(ctx, q)],
  [/^#\/q\/([^/]+)$/, (ctx, q) => renderQueue(ctx, q)],
  [/^(#\/?)?$/, renderOverview],
];

let current = null;  // the view's timers, stopped when it goes

function makeContext(main) {
  const timers = [];
  const ctx = {
    main,
    alive: true,
    // Runs fn now and then every `ms`, one call at a time, while the view is shown and the tab
    // is visible.
    every(ms, fn) {
      let busy = false;
      const tick = async () => {
        if (!ctx.alive || busy || document.hidden) return;
        busy = true;
        try {
          await fn();
        } catch (e) {
          handleError(e);
        } finally {
          busy = false;
        }
      };
      tick();
      timers.push(setInterval(tick, ms));
    },
    stop() {
      ctx.alive = false;
      timers.forEach(clearInterval);
    },
  };
  return ctx;
}

export function handleError(e) {
  if (e instanceof ApiError && e.status === 401) {
    token.clear();
    forget();
    if (location.hash !== '#/login') location.hash = '#/login';
    flash('The server refused the token: sign in again.', 'error');
    return;
  }
  flash(e instanceof ApiError ? `${e.status || ''} ${e.code}: ${e.message}`.trim() : String(e), 'error');
}

function showWho() {
  const who = document.getElementById('who');
  const me = access();
  if (!me || me.auth === false) {
    replace(who, me ? h('span', { class: 'muted' }, 'no auth file: loopback only') : '');
    return;
  }
  const out = h('button', { type: 'button', on: { click: signOut } }, 'Sign out');
  const name = me.known ? `${me.name} (${me.scopes.join(', ')})` : 'signed in';
  replace(who, h('span', null, name), ' ', out);
}

function signOut() {
  token.clear();
  forget();
  showWho();
  location.hash = '#/login';
}

async function route() {
  current?.stop();
  clearStaleFlash();
  const main = document.getElementById('main');
  const hash = location.hash;
  if (hash !== '#/login' && !access()) {
    try {
      await loadAccess();
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) {
        token.clear();
        location.hash = '#/login';
        return;
      }
      replace(main, h('p', { class: 'error' }, `The server did not answer: ${e.message}`));
      return;
    }
  }
  showWho();
  for (const [pattern, view] of routes) {
    const m = pattern.exec(hash);
    const params = m ? decodeAll(m.slice(1)) : null;
    if (!params) continue;
    current = makeContext(main);
    main.replaceChildren();
    // After a move within the page, the keyboard and a screen reader continue at the new
    // content, not at the link that was followed (gone) or the top of the document. A view
    // may then focus a field of its own (the login's token).
    if (moved) main.focus({ preventScroll: true });
    try {
      await view(current, ...params);
    } catch (e) {
      handleError(e);
    }
    return;
  }
  replace(main, h('h1', null, 'Not found'), h('p', null, h('a', { href: '#/' }, 'Back to the queues')));
}

// The fragment's parts, percent-decoded; null for a bad escape (a hand-typed URL).
function decodeAll(parts) {
  try {
    return parts.map((p) => (p === undefined ? p : decodeURIComponent(p)));
  } catch {
    return null;
  }
}

export async function signedIn() {
  showWho();
  location.hash = '#/';
}

let moved = false;  // false for the first page of a load: the browser puts the focus there
window.addEventListener('hashchange', () => {
  moved = true;
  route();
});
route();
