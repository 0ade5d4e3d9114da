// How times, durations, counts and payloads read on the pages.
const pad = (n, w = 2) => String(n).padStart(w, '0');

export function time(ms) {
  if (ms === null || ms === undefined) return '—';
  const d = new Date(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

export function duration(ms) {
  if (ms === null || ms === undefined) return '—';
  const sign = ms < 0 ? '-' : '';
  let rest = Math.abs(ms);
  if (rest < 1000) return `${sign}${Math.round(rest)}ms`;
  if (rest < 60000) return `${sign}${(rest / 1000).toFixed(rest < 10000 ? 1 : 0)}s`;
  const parts = [];
  for (const [unit, size] of [['d', 86400000], ['h', 3600000], ['m', 60000], ['s', 1000]]) {
    const n = Math.floor(rest / size);
    if (n > 0 && parts.length < 2) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  return sign + parts.join(' ');
}

// "in 5m" or "3s ago", from the server's now.
export function relative(ms, nowMs) {
  if (ms === null || ms === undefined) return '';
  const d = ms - nowMs;
  return d >= 0 ? `in ${duration(d)}` : `${duration(-d)} ago`;
}

export const count = (n) => (n === null || n === undefined ? '—' : Number(n).toLocaleString('en'));

export function rate(perSecond) {
  if (perSecond === null || perSecond === undefined) return '—';
  return perSecond >= 100 ? perSecond.toFixed(0) : perSecond.toFixed(1);
}

// A lateness quantile of a span (GET /v1/overview's "hour", GET .../history's "periods"): the
// bound of the bucket that holds it; null means past the last bound (30 min), or no deliveries.
export function lateness(span, key) {
  if (!span || span.deliveries === 0) return '—';
  const le = span[key];
  return le === null ? '> 30m' : `≤ ${duration(le)}`;
}

// The payload as text, JSON pretty-printed, or a hex dump for bytes that are not UTF-8.
export function payloadView(message) {
  if (message.payload_base64 !== undefined) {
    const raw = atob(message.payload_base64);
    return { kind: 'hex', text: hexDump(Uint8Array.from(raw, (c) => c.charCodeAt(0))) };
  }
  const text = message.payload ?? '';
  try {
    const parsed = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object') {
      return { kind: 'json', text: JSON.stringify(parsed, null, 2) };
    }
  } catch {
    // not JSON: shown as text
  }
  return { kind: 'text', text };
}

export function hexDump(bytes) {
  const lines = [];
  for (let at = 0; at < bytes.length; at += 16) {
    const row = bytes.subarray(at, at + 16);
    const hex = Array.from(row, (b) => pad(b.toString(16))).join(' ');
    const ascii = Array.from(row, (b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${at.toString(16).padStart(8, '0')}  ${hex.padEnd(47)}  |${ascii}|`);
  }
  return lines.join('\n');
}

// A short one-line preview of a payload for tables.
export function preview(message, max = 60) {
  const text = message.payload_base64 !== undefined ? `(binary, base64) ${message.payload_base64}` : message.payload ?? '';
  const line = text.replace(/\s+/g, ' ');
  return line.length > max ? `${line.slice(0, max)}…` : line;
}
