// The first page when the server has an auth file: the token is kept in sessionStorage and
// sent in the Authorization header only.
import { ApiError, token } from './api.js';
import { forget, loadAccess } from './access.js';
import { field, h, replace } from './dom.js';
import { signedIn } from './app.js';

export function renderLogin(ctx) {
  const input = h('input', { type: 'password', id: 'token', name: 'token', autocomplete: 'off', required: true, spellcheck: 'false' });
  const error = h('p', { class: 'error', role: 'alert' });
  const form = h('form', { class: 'login', on: { submit: (e) => { e.preventDefault(); submit(); } } },
    h('h1', null, 'Sign in'),
    h('p', null, 'This server needs a token (', h('code', null, 'delayq token new'), '). It is kept in this tab only, until you sign out or close it.'),
    field('Token', input),
    h('button', { type: 'submit' }, 'Sign in'),
    error);
  replace(ctx.main, form);
  input.focus();

  async function submit() {
    token.set(input.value.trim());
    forget();
    try {
      await loadAccess();
    } catch (e) {
      token.clear();
      forget();
      error.textContent = e instanceof ApiError && e.status === 401 ? 'The server refused this token.' : `Could not sign in: ${e.message}`;
      return;
    }
    await signedIn();
  }
}
