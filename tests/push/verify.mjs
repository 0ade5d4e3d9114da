// Checks signed push requests with the Standard Webhooks reference library (npm's
// standardwebhooks), so that delayq's signer is judged by code that is not delayq's.
// usage: node verify.mjs FILE (from a directory whose node_modules has standardwebhooks:
// verify.sh copies it there)
// FILE holds one JSON object a line: {"secrets": [...], "headers": {...}, "body_base64": "...",
// "expect": "fail" (optional)}. Every secret must verify the request alone, as a receiver that
// knows only one of them (mid-rotation) would; a line marked "expect": "fail" must not verify.
// Prints `verified N` and exits 0, or the first failing line and why and exits 1.
import { readFileSync } from 'node:fs';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

const [file] = process.argv.slice(2);
if (!file) {
  console.error('usage: node verify.mjs FILE');
  process.exit(2);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
function isUtf8(bytes) {
  try {
    utf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

// The library turns a Buffer into a string (UTF-8, replacing invalid bytes) before signing it
// again, so it cannot verify a body that is not UTF-8: its check would fail on a correct
// signature. Such bodies are checked here as the specification defines it instead, HMAC-SHA256
// over the bytes of id.timestamp.body, still with node's code rather than delayq's.
function verifyBytes(secret, headers, body) {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const signed = Buffer.concat([
    Buffer.from(`${headers['webhook-id']}.${headers['webhook-timestamp']}.`),
    body,
  ]);
  const expected = createHmac('sha256', key).update(signed).digest();
  const age = Math.floor(Date.now() / 1000) - Number.parseInt(headers['webhook-timestamp'], 10);
  if (!(Math.abs(age) <= 5 * 60)) throw new Error('timestamp missing or more than 5 minutes off');
  const match = (headers['webhook-signature'] ?? '').split(' ').some((entry) => {
    const [version, signature] = entry.split(',');
    const given = Buffer.from(signature ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!match) throw new Error('No matching signature found (HMAC over the bytes)');
}

// Throws why the request does not verify.
function check(request) {
  const { secrets, headers } = request;
  if (!Array.isArray(secrets) || secrets.length === 0) throw new Error('no secrets listed');
  const body = Buffer.from(request.body_base64 ?? '', 'base64');
  // One v1 signature for each secret, and nothing else: a receiver tries each one.
  const signatures = (headers['webhook-signature'] ?? '').split(' ');
  if (signatures.length !== secrets.length || !signatures.every((s) => s.startsWith('v1,'))) {
    throw new Error(`expected ${secrets.length} v1 signature(s), got "${headers['webhook-signature']}"`);
  }
  const byLibrary = isUtf8(body);
  secrets.forEach((secret, i) => {
    try {
      if (byLibrary) {
        // jsonParse: false, as the bodies are not JSON; the answer is then undefined.
        new Webhook(secret).verify(body, headers, { jsonParse: false });
      } else {
        verifyBytes(secret, headers, body);
      }
    } catch (error) {
      throw new Error(`secret ${i + 1} of ${secrets.length}: ${error.message}`);
    }
  });
  return byLibrary;
}

const lines = readFileSync(file, 'utf8').split('\n');
let verified = 0;
let refused = 0;
let notUtf8 = 0;
for (const [index, line] of lines.entries()) {
  if (line.trim() === '') continue;
  const where = `${file}:${index + 1}`;
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    console.log(`${where}: not JSON: ${error.message}`);
    process.exit(1);
  }
  let failure = null;
  try {
    if (!check(request)) notUtf8 += 1;
  } catch (error) {
    failure = error.message;
  }
  if (request.expect === 'fail') {
    if (failure === null) {
      console.log(`${where}: verified, but it is marked "expect": "fail"`);
      process.exit(1);
    }
    refused += 1;
  } else if (failure !== null) {
    console.log(`${where}: ${failure}`);
    process.exit(1);
  } else {
    verified += 1;
  }
}
if (verified === 0) {
  console.log(`${file}: no request to verify`);
  process.exit(1);
}
console.log(`refused ${refused} tampered, as expected; ${notUtf8} body(ies) not UTF-8 checked by HMAC over the bytes`);
console.log(`verified ${verified}`);
