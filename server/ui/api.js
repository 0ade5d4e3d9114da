// Every call to the JSON API (docs/http.md): the token goes in the Authorization header only,
// never in a URL or a cookie, and lives in sessionStorage (gone with the tab).
const kTokenKey = 'delayq.token';

export const token = {
  get: () => sessionStorage.getItem(kTokenKey) ?? '',
  set: (value) => sessionStorage.setItem(kTokenKey, value),
  clear: () => sessionStorage.removeItem(kTokenKey),
};

// A problem+json answer (RFC 9457), or a network failure (status 0).
export class ApiError extends Error {
  constructor(status, code, detail) {
    super(detail || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
  }
}

export async function api(method, path, body) {
  const { data } = await call(method, path, body);
  return data;
}

async function call(method, path, body) {
  const headers = {};
  const t = token.get();
  if (t) headers.Authorization = `Bearer ${t}`;
  const init = { method, headers, cache: 'no-store', credentials: 'omit' };
  // Every POST sends JSON, body or not: the server refuses a POST without the media type.
  if (body !== undefined || method === 'POST') {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body ?? {});
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, 'network', `the server did not answer (${e.message})`);
  }
  if (response.status === 204) return { data: null, text: '' };
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    throw new ApiError(response.status, data?.code ?? 'error', data?.detail ?? response.statusText);
  }
  return { data, text };
}

// A queue name, message id or schedule name as one path segment.
export const seg = (s) => encodeURIComponent(s);
export const queuePath = (queue) => `/v1/queues/${seg(queue)}`;
