// The dashboard in headless chromium against a running `delayq serve` (dashboard_test.sh starts
// it with an auth file): sign in, counts that follow a send, a message, dead letters requeued
// and purged, a read token's disabled buttons and their reasons, a hostile payload shown as
// text, the timeline when the server has its route, and not one console error or CSP violation.
// usage: node dashboard.mjs BASE_URL [OPEN_BASE_URL]   (OPEN_BASE_URL: a server of the same
//        Redis without an auth file; env: DELAYQ_ADMIN_TOKEN, DELAYQ_READ_TOKEN,
//        DELAYQ_CHROMIUM, and DELAYQ_SCREENSHOTS=DIR for docs/img/dashboard-*.png)
import assert from 'node:assert/strict';
import path from 'node:path';
import puppeteer from 'puppeteer-core';

const base = process.argv[2];
const adminToken = process.env.DELAYQ_ADMIN_TOKEN;
const readToken = process.env.DELAYQ_READ_TOKEN;
const shots = process.env.DELAYQ_SCREENSHOTS;
const kHostile = '<img src=x onerror=window.__xss=1>';
const kTimeout = 10000;
// A push target's header value: write-only, never on a page.
const kHeaderValue = 'Bearer hook-secret-value';
const openBase = process.argv[3];  // the same Redis, served without an auth file

// --- the API, as the test's own client -------------------------------------------------------
async function api(method, route, body, tok = adminToken) {
  const headers = { Authorization: `Bearer ${tok}` };
  if (body !== undefined || method === 'POST') headers['Content-Type'] = 'application/json';
  const r = await fetch(base + route, { method, headers, body: body === undefined && method !== 'POST' ? undefined : JSON.stringify(body ?? {}) });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : null };
}
const send = (queue, message) => api('POST', `/v1/queues/${encodeURIComponent(queue)}/messages`, message);
const stats = async (queue) => (await api('GET', `/v1/queues/${encodeURIComponent(queue)}`)).body.stats;

let step = 'start';
function check(name) {
  step = name;
  console.log(`- ${name}`);
}

// --- what the page must never do ------------------------------------------------------------
const problems = [];
// A 404 the dashboard expects and handles: a route the server may not have yet, a queue
// without a push target. Chromium logs each failed load as a console error.
const expected404 = [/\/v1\/token$/, /\/timeline(\?|$)/, /\/push-target$/];
function watch(page, who) {
  page.on('console', (msg) => {
    if (msg.type() !== 'error') return;
    const url = msg.location()?.url ?? '';
    if (msg.text().includes('404') && expected404.some((p) => p.test(url))) return;
    // Whether a token is needed, and whether the one typed in is good, is asked of the server
    // (a 401 means the login page): the dashboard's first call, and its sign-in.
    if (msg.text().includes('401') && /\/v1\/token$|\/v1\/queues$/.test(url)) return;
    problems.push(`${who} console error at "${step}": ${msg.text()} ${url}`);
  });
  page.on('pageerror', (e) => problems.push(`${who} page error at "${step}": ${e.message}`));
  page.on('dialog', (d) => { problems.push(`${who} unexpected native dialog: ${d.message()}`); d.dismiss(); });
}
// Every CSP violation, from the first script on: kept in the page and read at the end.
const kViolationHook = () => {
  window.__violations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`);
  });
};

// The viewport, or the element `selector` alone.
async function shot(page, name, selector) {
  if (!shots) return;
  await new Promise((r) => setTimeout(r, 300));  // the last poll's figures painted
  const target = selector ? await page.$(selector) : page;
  await target.screenshot({ path: path.join(shots, `dashboard-${name}.png`) });
}

async function text(page, selector) {
  return page.$eval(selector, (el) => el.textContent);
}

async function signIn(page, tok) {
  await page.goto(`${base}/`, { waitUntil: 'domcontentloaded' });
  await page.waitForSelector('#token', { timeout: kTimeout });
  assert.equal(new URL(page.url()).pathname, '/ui/', 'GET / redirects to /ui/');
  await page.type('#token', tok);
  await page.click('form.login button[type=submit]');
  await page.waitForSelector('#queues tbody tr', { timeout: kTimeout });
}

async function cellOf(page, queue, column) {
  return page.$eval(`#queues tr[data-queue="${queue}"]`, (tr, c) => tr.cells[c].textContent, column);
}

async function confirmWith(page, expected) {
  await page.waitForSelector('dialog.confirm[open]', { timeout: kTimeout });
  const question = await text(page, 'dialog.confirm p');
  assert.ok(question.includes(expected), `the confirmation states the count: "${question}" has "${expected}"`);
  await page.click('dialog.confirm button[value=yes]');
}

// Until the server has GET .../timeline, the chart is drawn from an answer of its documented
// shape, made up here.
async function fakeTimeline(page) {
  await page.setRequestInterception(true);
  const handler = (request) => {
    if (request.isInterceptResolutionHandled()) return;
    if (!/\/timeline$/.test(new URL(request.url()).pathname)) {
      request.continue();
      return;
    }
    const now = Date.now();
    const step = 5 * 60000;
    const buckets = Array.from({ length: 12 }, (_, i) => ({
      from_ms: now + i * step, to_ms: now + (i + 1) * step, count: [0, 1, 1, 1, 0, 1, 1, 0, 1, 2, 0, 1][i],
    }));
    request.respond({ status: 200, contentType: 'application/json', body: JSON.stringify({ queue: 'orders', now_ms: now, buckets }) });
  };
  page.on('request', handler);
  return async () => {
    page.off('request', handler);
    await page.setRequestInterception(false);
  };
}

// --- the data the pages show ----------------------------------------------------------------
async function seed() {
  for (let i = 0; i < 8; ++i) await send('orders', { payload: `later ${i}`, delay: `${(i + 1) * 7}m` });
  assert.equal((await send('orders', { payload: JSON.stringify({ order: 42, items: [1, 2] }), id: 'order-42', delay: '1h' })).status, 201);
  assert.equal((await send('orders', { payload: kHostile, id: 'hostile' })).status, 201);
  assert.equal((await send('orders', { payload_base64: 'AAECA/7/ZGVsYXlx', id: 'binary' })).status, 201);
  await send('emails', { payload: 'welcome' });
  const schedule = await api('PUT', '/v1/queues/orders/schedules/nightly', { cron: '30 2 * * *', tz: 'Europe/Berlin', payload: 'report' });
  assert.equal(schedule.status, 201, JSON.stringify(schedule.body));
  const target = await api('PUT', '/v1/queues/orders/push-target', {
    url: 'https://hooks.example.com/delayq', headers: [{ name: 'Authorization', value: kHeaderValue }],
    secrets: ['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'], max_in_flight: 20 });
  assert.equal(target.status, 201, JSON.stringify(target.body));
  for (const id of ['dead-1', 'dead-2', 'dead-3']) await send('payments', { payload: `charge ${id}`, id });
  const leased = await api('POST', '/v1/queues/payments/leases', { max: 3 });
  assert.equal(leased.body.deliveries.length, 3, JSON.stringify(leased.body));
  for (const d of leased.body.deliveries) {
    const r = await api('POST', '/v1/queues/payments/reject', { lease: d.lease, error: `card declined <b>${d.id}</b>` });
    assert.equal(r.body.status, 'dead_lettered');
  }
}

// Some traffic, so that the overview's rates are not all zero in its screenshot.
async function traffic(seconds) {
  const end = Date.now() + seconds * 1000;
  while (Date.now() < end) {
    await Promise.all([1, 2, 3, 4, 5].map((i) => send('emails', { payload: `mail ${i}` })));
    const r = await api('POST', '/v1/queues/emails/leases', { max: 4 });
    const leases = r.body.deliveries.map((d) => d.lease);
    if (leases.length) await api('POST', '/v1/queues/emails/ack', { leases });
    await new Promise((res) => setTimeout(res, 200));
  }
}

async function main() {
  // The static files' headers, from the test's own client: the CSP the pages run under.
  const index = await fetch(`${base}/ui/`);
  assert.equal(index.status, 200);
  const csp = index.headers.get('content-security-policy') ?? '';
  for (const d of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"]) {
    assert.ok(csp.includes(d), `CSP has ${d}: ${csp}`);
  }
  assert.ok(!csp.includes('unsafe-inline'), csp);
  assert.equal(index.headers.get('x-content-type-options'), 'nosniff');
  const again = await fetch(`${base}/ui/`, { headers: { 'If-None-Match': index.headers.get('etag') } });
  assert.equal(again.status, 304, 'an unchanged file is a 304');

  await seed();
  const timelineAnswers = (await api('GET', '/v1/queues/orders/timeline')).status === 200;

  const browser = await puppeteer.launch({
    executablePath: process.env.DELAYQ_CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--headless=new', '--disable-gpu', '--disable-dev-shm-usage'],
    defaultViewport: { width: 1280, height: 800 },
  });
  try {
    const page = await browser.newPage();
    page.setDefaultTimeout(kTimeout);
    watch(page, 'admin');
    await page.evaluateOnNewDocument(kViolationHook);

    check('a refused token: the login page says so');
    await page.goto(`${base}/ui/`, { waitUntil: 'domcontentloaded' });
    await page.waitForSelector('#token');
    await shot(page, 'login');
    await page.type('#token', 'dqt_not-a-token');
    await page.click('form.login button[type=submit]');
    await page.waitForFunction(() => document.querySelector('form.login .error')?.textContent.includes('refused'));

    check('sign in with an admin token: the overview lists the queues');
    await signIn(page, adminToken);
    const stored = await page.evaluate(() => sessionStorage.getItem('delayq.token'));
    assert.equal(stored, adminToken, 'the token is kept in sessionStorage');
    assert.ok(!page.url().includes(adminToken), 'the token is never in the URL');
    assert.equal(await page.evaluate(() => document.cookie), '', 'nor in a cookie');
    await page.waitForSelector('#queues tr[data-queue="payments"]');

    check('counts follow a send made through the API');
    await page.waitForFunction(() => document.querySelector('#queues tr[data-queue="orders"]')?.cells[2].textContent === '2');
    assert.equal((await send('orders', { payload: 'one more', id: 'one-more' })).status, 201);
    await page.waitForFunction(() => document.querySelector('#queues tr[data-queue="orders"]')?.cells[2].textContent === '3');
    assert.equal(await cellOf(page, 'payments', 4), '3');
    await traffic(3);
    // The hour's figures: from the history's first point, which the overview itself recorded.
    await page.waitForFunction(() => document.querySelector('#queues tr[data-queue="emails"]')?.cells[5].textContent !== '—');
    await page.waitForFunction(() => document.querySelector('#queues tr[data-queue="emails"]')?.cells[8].textContent.startsWith('≤'));
    await shot(page, 'overview');

    check('the Redis panel: the primary, its eviction policy and the engine');
    await page.waitForSelector('#redis tbody tr');
    const redisPanel = await text(page, '#redis');
    assert.ok(redisPanel.includes('noeviction'), redisPanel);
    assert.ok(/Engine: (functions|scripts)/.test(redisPanel), redisPanel);
    assert.equal(await page.$('#redis [role=alert]'), null, 'no eviction warning for noeviction');

    check('the queue page: counts, settings, timeline');
    await page.click('#queues a[href="#/q/orders"]');
    await page.waitForFunction(() => document.querySelector('dl.counts dd')?.textContent === '10');
    await page.waitForSelector('#settings input[name=max_attempts]:not([disabled])');
    let unfake = null;
    if (!timelineAnswers) {
      console.log('  (GET .../timeline answers 404 here: its panel stays hidden; then drawn from a made-up answer)');
      await new Promise((r) => setTimeout(r, 1500));
      assert.ok(await page.$eval('#timeline', (el) => el.hidden), 'the timeline panel is hidden without its route');
      unfake = await fakeTimeline(page);
      await page.reload();
    }
    await page.waitForSelector('#timeline:not([hidden]) svg.timeline rect');
    const bars = await page.$$eval('#timeline svg.timeline rect', (rs) => rs.length);
    assert.equal(bars, timelineAnswers ? 60 : 12, 'a bar a bucket');
    if (timelineAnswers) {
      // The seeded messages: one every 7 minutes from 7 on (8 in the next hour), order-42 an
      // hour after its send, and the schedule's next occurrence whenever 02:30 in Berlin is.
      await page.waitForSelector('#timeline p');
      const inRange = Number((await text(page, '#timeline p')).split(' ')[0]);
      assert.ok(inRange >= 8 && inRange <= 10, await text(page, '#timeline p'));
      await page.select('#timeline select', 'day');
      await page.waitForFunction(() => document.querySelectorAll('#timeline svg.timeline rect').length === 48);
      await page.select('#timeline select', 'hour');
      await page.waitForFunction(() => document.querySelectorAll('#timeline svg.timeline rect').length === 60);
    }
    await shot(page, 'queue');
    await unfake?.();

    check('the last hour, from the history in Redis: charts once two points are 10 s apart');
    const busy = traffic(20);  // meanwhile, emails has periods with traffic for its charts below
    await page.waitForSelector('#history p');
    await page.waitForSelector('#history-latest', { timeout: 45000 });
    const latest = await text(page, '#history-latest');
    assert.ok(/sent [0-9.]+\/s, delivered [0-9.]+\/s, acked [0-9.]+\/s/.test(latest), latest);
    assert.equal(await page.$$eval('#history svg.history', (c) => c.length), 3, 'three charts');
    await busy;

    check("a busy queue's last hour: a line per series, and the hour's lateness");
    await page.evaluate(() => { window.location.hash = '#/q/emails'; });
    await page.waitForFunction(() => /^p50 ≤ .*, p99 .* \(\d+ deliveries over .*\)$/.test(document.querySelector('#lateness')?.textContent));
    // Three points or more: each of the five rate series is a line, not a dot.
    await page.waitForFunction(() => [...document.querySelectorAll('#history svg.history polyline')]
      .filter((l) => l.getAttribute('points').includes(' ')).length >= 5, { timeout: 45000 });
    await shot(page, 'history', '#history');
    await page.evaluate(() => { window.location.hash = '#/q/orders'; });
    await page.waitForFunction(() => document.querySelector('h1')?.textContent.startsWith('orders'));

    check('schedules: listed, their next occurrences, a trigger');
    await page.waitForSelector('#schedules tbody tr');
    assert.ok((await text(page, '#schedules tbody')).includes('30 2 * * *'));
    await page.$$eval('#schedules button', (bs) => bs.find((b) => b.textContent === 'Next').click());
    await page.waitForFunction(() => document.querySelectorAll('#schedules .next li').length === 5);
    await page.$$eval('#schedules button', (bs) => bs.find((b) => b.textContent === 'Trigger').click());
    await page.waitForFunction(() => document.querySelector('#flash')?.textContent.startsWith('Triggered nightly'));

    check('the push target: its header names, never a header value or a secret');
    await page.waitForFunction(() => document.querySelector('#push')?.textContent.includes('hooks.example.com'));
    const pushText = await text(page, '#push');
    assert.ok(pushText.includes('Authorization') && pushText.includes('1 secret'), pushText);
    assert.ok(!(await page.content()).includes('hook-secret-value'), 'no header value in the page');
    assert.ok(!(await page.content()).includes('whsec_'), 'no secret in the page');

    check('settings: saved through PATCH');
    const maxAttempts = await page.$('#settings input[name=max_attempts]');
    await maxAttempts.click({ clickCount: 3 });
    await maxAttempts.type('30');
    await page.click('#settings button[type=submit]');
    await page.waitForFunction(() => document.querySelector('#flash')?.textContent.startsWith('Saved the settings'));
    assert.equal((await api('GET', '/v1/queues/orders')).body.settings.max_attempts, 30);

    check('pause and resume the queue');
    await page.click('.toolbar button');  // Pause
    await page.waitForFunction(() => document.querySelector('h1 .badge')?.textContent === 'paused');
    assert.equal((await api('GET', '/v1/queues/orders')).body.settings.paused, true);
    await page.click('.toolbar button');  // Resume
    await page.waitForFunction(() => document.querySelector('h1 .badge')?.textContent === 'active');

    check('browse the ready messages and open one: a hostile payload shows as text');
    await page.goto(`${base}/ui/#/q/orders/messages/ready`);
    await page.waitForSelector('#messages a[href="#/q/orders/m/hostile"]');
    await page.click('#messages a[href="#/q/orders/m/hostile"]');
    await page.waitForSelector('#payload');
    assert.equal(await text(page, '#payload'), kHostile);
    assert.equal(await page.$('main img'), null, 'no img element made from the payload');
    assert.equal(await page.evaluate(() => window.__xss), undefined, 'the payload ran no script');

    check('find a message by id; a JSON payload is pretty-printed, a binary one is hex');
    await page.goto(`${base}/ui/#/q/orders/messages/scheduled`);
    await page.waitForSelector('form.find input');
    await page.type('form.find input', 'order-42');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('#payload')?.textContent.includes('"order": 42'));
    assert.ok((await text(page, '#message')).includes('scheduled'));
    await shot(page, 'message');
    await page.goto(`${base}/ui/#/q/orders/m/binary`);
    await page.waitForFunction(() => document.querySelector('#payload')?.textContent.startsWith('00000000  00 01 02 03 fe ff'));

    check('reschedule and cancel a message');
    await page.goto(`${base}/ui/#/q/orders/m/one-more`);
    await page.waitForSelector('input[name=delay]');
    await page.type('input[name=delay]', '2h');
    await page.click('form.inline button[type=submit]');
    await page.waitForFunction(() => document.querySelector('#flash')?.textContent.startsWith('Rescheduled one-more'));
    assert.equal((await api('GET', '/v1/queues/orders/messages/one-more')).body.state, 'scheduled');
    await page.waitForSelector('#message');
    await page.click('button.danger');  // Cancel message
    await confirmWith(page, 'one-more');
    await page.waitForFunction(() => document.querySelector('#flash')?.textContent.startsWith('Cancelled one-more'));
    await page.waitForSelector('#messages');  // back to the list of its state
    assert.equal((await api('GET', '/v1/queues/orders/messages/one-more')).status, 404);

    check('dead letters: reason and last error shown as text; requeue one after a confirmation');
    await page.goto(`${base}/ui/#/q/payments/dead`);
    await page.waitForFunction(() => document.querySelectorAll('#dead tbody input[type=checkbox]').length === 3);
    const deadText = await text(page, '#dead tbody');
    assert.ok(deadText.includes('rejected') && deadText.includes('card declined <b>dead-1</b>'), deadText);
    await shot(page, 'dead-letters');
    await page.click('#dead input[value="dead-1"]');
    await page.$$eval('.toolbar button', (bs) => bs.find((b) => b.textContent === 'Requeue selected').click());
    await confirmWith(page, 'Requeue 1 dead letter of payments');
    await page.waitForFunction(() => document.querySelectorAll('#dead tbody input[type=checkbox]').length === 2);
    let s = await stats('payments');
    assert.equal(s.dead, 2);
    assert.equal(s.ready, 1);

    check('the keyboard: Escape answers no to a confirmation');
    await page.$$eval('.toolbar button', (bs) => bs.find((b) => b.textContent === 'Purge all').click());
    await page.waitForSelector('dialog.confirm[open]');
    assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Cancel', 'the safe answer has the focus');
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.querySelector('dialog.confirm'));
    assert.equal((await stats('payments')).dead, 2, 'nothing purged');

    check('purge all: the confirmation states the count');
    await page.$$eval('.toolbar button', (bs) => bs.find((b) => b.textContent === 'Purge all').click());
    await confirmWith(page, 'Purge 2 dead letters of payments');
    await page.waitForFunction(() => document.querySelector('#dead tbody')?.textContent === 'None.');
    s = await stats('payments');
    assert.equal(s.dead, 0);

    check('sign out: back to the login page, the token gone');
    await page.click('#who button');
    await page.waitForSelector('#token');
    assert.equal(await page.evaluate(() => sessionStorage.getItem('delayq.token')), null);
    const violations = await page.evaluate(() => window.__violations);
    assert.deepEqual(violations, [], 'no CSP violation');

    check('a read token sees, and its action buttons are disabled with the reason');
    const context = await browser.createBrowserContext();
    const viewer = await context.newPage();
    viewer.setDefaultTimeout(kTimeout);
    watch(viewer, 'reader');
    await viewer.evaluateOnNewDocument(kViolationHook);
    await signIn(viewer, readToken);
    await viewer.goto(`${base}/ui/#/q/orders`);
    await viewer.waitForFunction(() => document.querySelector('.toolbar button')?.disabled === true);
    const reason = await viewer.$eval('.toolbar .why', (el) => el.textContent);
    assert.ok(reason.includes('admin'), `the pause button says why: ${reason}`);
    assert.ok(await viewer.$eval('#settings input[name=max_attempts]', (el) => el.disabled));
    assert.ok(await viewer.$eval('form.send button[type=submit]', (el) => el.disabled));
    await viewer.goto(`${base}/ui/#/q/orders/m/order-42`);
    await viewer.waitForSelector('#payload');
    const cancel = await viewer.$$eval('.toolbar button', (bs) => bs.map((b) => [b.textContent, b.disabled]));
    assert.ok(cancel.every(([, disabled]) => disabled), JSON.stringify(cancel));
    assert.ok((await text(viewer, '.toolbar')).includes('send scope'));
    await send('payments', { payload: 'x', id: 'dead-4' });
    const d = (await api('POST', '/v1/queues/payments/leases', { max: 10 })).body.deliveries.find((x) => x.id === 'dead-4');
    await api('POST', '/v1/queues/payments/reject', { lease: d.lease });
    await viewer.goto(`${base}/ui/#/q/payments/dead`);
    await viewer.waitForSelector('#dead input[value="dead-4"]');
    const deadButtons = await viewer.$$eval('.toolbar button', (bs) => bs.map((b) => b.disabled));
    assert.ok(deadButtons.length === 4 && deadButtons.every(Boolean), JSON.stringify(deadButtons));
    assert.deepEqual(await viewer.evaluate(() => window.__violations), []);

    check('the keyboard: the first Tab reaches the skip link');
    await viewer.goto(`${base}/ui/#/`);
    await viewer.reload();
    await viewer.waitForSelector('#queues tbody tr');
    await viewer.keyboard.press('Tab');
    assert.equal(await viewer.evaluate(() => document.activeElement.className), 'skip');
    // Past the header's links and its sign-out: the first queue.
    for (let i = 0; i < 8 && (await viewer.evaluate(() => document.activeElement.textContent)) !== 'emails'; ++i) {
      await viewer.keyboard.press('Tab');
    }
    assert.equal(await viewer.evaluate(() => document.activeElement.textContent), 'emails');
    await viewer.keyboard.press('Enter');
    await viewer.waitForSelector('dl.counts');
    await viewer.waitForFunction(() => document.activeElement.id === 'main');  // the new page's content

    check('lateness over the last hour, from the history: the deliveries of the traffic above');
    await viewer.waitForFunction(() => /^p50 ≤ .*, p99 .* \(\d+ deliveries over .*\)$/.test(document.querySelector('#lateness')?.textContent));

    check('the dark theme follows prefers-color-scheme');
    await viewer.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    const dark = await viewer.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(dark, 'rgb(13, 17, 23)');
    await shot(viewer, 'dark');
    await viewer.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);

    if (openBase) {
      check('without an auth file: straight to the overview, no sign-in');
      const open = await browser.createBrowserContext();
      const anyone = await open.newPage();
      watch(anyone, 'open');
      await anyone.evaluateOnNewDocument(kViolationHook);
      await anyone.goto(`${openBase}/ui/`);
      await anyone.waitForSelector('#queues tr[data-queue="orders"]');
      assert.ok((await text(anyone, '#who')).includes('no auth file'));
      assert.equal(await anyone.$('#token'), null);
      assert.deepEqual(await anyone.evaluate(() => window.__violations), []);
      await open.close();
    }

    check('phone width: nothing wider than the screen');
    await page.setViewport({ width: 390, height: 844 });
    await signIn(page, adminToken);
    await page.goto(`${base}/ui/#/q/orders`);
    await page.waitForFunction(() => document.querySelector('dl.counts dd')?.textContent !== '');
    for (const hash of ['#/', '#/q/orders']) {
      await page.goto(`${base}/ui/${hash}`);
      await page.waitForSelector('h1');
      await new Promise((r) => setTimeout(r, 500));
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(width <= 390, `${hash} is ${width} px wide at 390`);
    }
    await shot(page, 'phone');
  } finally {
    await browser.close();
  }
  assert.deepEqual(problems, [], 'no console error, page error or unexpected dialog');
  console.log('ok: the dashboard signed in, showed, acted and refused as it should');
}

main().catch((e) => {
  console.error(`FAIL at "${step}": ${e.stack ?? e}`);
  if (problems.length) console.error(problems.join('\n'));
  process.exit(1);
});
