// The dashboard on a phone (390x844, touch) against a real daemon: nothing wider than the
// screen on the board and in a run, the bottom navigation, touch targets of 40 px or
// more, the run's tabs one pane at a time under a strip that scrolls; installable (the
// manifest served with its type, also under AGENTRY_WEB_BASE_PATH, and the service worker
// registered, keeping the app shell and never the API); and browser notifications for
// the runs a rule (a saved board filter) names when they end or need the user, each
// once, also across a daemon restart, a click opening the run; shown by the service
// worker where the page cannot (Chrome on Android). Screenshots (phone-*.png)
// go to $AGENTRY_SCREENSHOTS_DIR or a temp dir.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Daemon, newPage, screenshotsDir, sharedDaemonAndBrowser, tid, until } from './harness.mjs';
import { mock, problems, runRow, standardConfig } from './fixtures.mjs';

const suite = sharedDaemonAndBrowser(standardConfig());
const PHONE = { viewport: { width: 390, height: 844 }, colorScheme: 'dark', isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

async function shoot(page, name) {
  await page.evaluate(() => document.fonts?.ready);
  const file = path.join(screenshotsDir(), `phone-${name}.png`);
  await page.screenshot({ path: file, animations: 'disabled', caret: 'hide' });
  assert.ok(fs.statSync(file).size > 5_000, `${file} is suspiciously small`);
}

/** What is wider than the screen: the page itself, or one of the shell's scrollers. */
async function overflow(page) {
  return page.evaluate(() => {
    const out = [];
    const root = document.scrollingElement;
    if (root.scrollWidth > window.innerWidth) out.push(`page ${root.scrollWidth} > ${window.innerWidth}`);
    for (const el of document.querySelectorAll('.main, .tab-body, .board-list, .run-view, .board'))
      if (el.scrollWidth > el.clientWidth + 1) out.push(`${el.className} ${el.scrollWidth} > ${el.clientWidth}`);
    return out;
  });
}

/** The visible controls (selector) smaller than 40 px in either direction. */
async function smallTargets(page, selector) {
  return page.locator(selector).evaluateAll((els) =>
    els
      .map((el) => [el, el.getBoundingClientRect()])
      .filter(([el, r]) => r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden')
      .filter(([, r]) => r.height < 40 || r.width < 40)
      .map(([el, r]) => `${el.getAttribute('data-testid') ?? el.className} ${Math.round(r.width)}x${Math.round(r.height)}`));
}

test('at phone size the board and a run fit the screen, with a bottom navigation and 40 px touch targets', async (t) => {
  const { daemon } = suite;
  const done = await daemon.createRun({
    agent: 'mock', name: 'A run with a rather long name that has to fit a phone screen',
    message: mock({ say: 'A long line without breaks: ' + 'x'.repeat(300) + '\n\n```\n' + 'wide code '.repeat(40) + '\n```' }),
  });
  const tasked = await daemon.createRun({ agent: 'mock', assignment: 'tasked', name: 'Release checklist', start: false });
  await daemon.waitForStatus(done, 'success');

  const page = await newPage(t, suite.browser, PHONE);
  await page.goto(daemon.url('/'));
  await page.locator(runRow(done)).waitFor();
  await page.locator(runRow(tasked)).waitFor();
  assert.deepEqual(await overflow(page), [], 'the board is wider than the screen');

  // The navigation is a bar along the bottom of the screen, each item a wide target.
  const board = await page.locator(tid('nav-board')).boundingBox();
  assert.ok(board.y + board.height >= 844 - 2 && board.y >= 844 - 60, `the navigation is not at the bottom: ${JSON.stringify(board)}`);
  assert.deepEqual(await smallTargets(page, `.navs a, .topbar button:visible, .topbar a.button, ${tid('run-row')}`), []);
  // Each run a card of its own.
  const card = await page.locator(runRow(done)).evaluate((el) => ({ radius: parseFloat(getComputedStyle(el).borderTopLeftRadius), width: el.getBoundingClientRect().width }));
  assert.ok(card.radius > 0 && card.width <= 390 - 8, `the run row is not a card: ${JSON.stringify(card)}`);
  await shoot(page, 'board');

  // The bottom navigation goes where it says, by touch.
  await page.locator(tid('nav-definitions')).tap();
  await page.waitForURL('**/definitions');
  assert.deepEqual(await overflow(page), [], 'the definitions page is wider than the screen');
  await page.locator(tid('nav-board')).tap();
  await page.locator(runRow(done)).tap();
  await page.locator(tid('run-view', `[data-run-id="${done}"]`)).waitFor();
  await page.locator(tid('message-text'), { hasText: 'A long line' }).first().waitFor();
  assert.deepEqual(await overflow(page), [], 'the run view is wider than the screen');
  const strip = await page.locator('.tabs').evaluate((el) => ({ scrolls: el.scrollWidth > el.clientWidth, overflowX: getComputedStyle(el).overflowX }));
  assert.ok(strip.scrolls && strip.overflowX === 'auto', `the tab strip does not scroll sideways: ${JSON.stringify(strip)}`);
  assert.deepEqual(await smallTargets(page, `${tid('tab-timeline')}, ${tid('tab-tasks')}`), []);
  await shoot(page, 'run');

  // A tab out of view: scrolled to and tapped, it is the one pane shown.
  const files = page.locator(tid('tab-files'));
  await files.scrollIntoViewIfNeeded();
  await files.tap();
  await page.waitForURL(`**/runs/${done}/files`);
  assert.equal(await page.locator('.tab-body').evaluate((el) => el.children.length), 1, 'one pane at a time');
  assert.equal(await page.locator(tid('timeline')).count(), 0, 'the timeline is still shown beside the files');
  assert.deepEqual(await overflow(page), [], 'the files tab is wider than the screen');
  await page.locator(tid('nav-board')).tap();
  await page.locator(runRow(tasked)).waitFor();
  assert.deepEqual(page.problems, [], problems(page));
});

test('the manifest is served with its type and the service worker keeps the shell, never the API', async (t) => {
  const { daemon } = suite;
  const answer = await fetch(daemon.url('/manifest.webmanifest'));
  assert.equal(answer.status, 200);
  assert.equal(answer.headers.get('content-type'), 'application/manifest+json');
  const manifest = await answer.json();
  assert.equal(manifest.name, 'agentry');
  assert.equal(manifest.display, 'standalone');
  assert.equal(manifest.start_url, './', 'start_url is relative, so it follows the base path');
  assert.ok(manifest.theme_color && manifest.background_color);
  for (const icon of manifest.icons) {
    const got = await fetch(daemon.url('/' + icon.src));
    assert.equal(got.status, 200, icon.src);
    assert.equal(got.headers.get('content-type'), icon.type, icon.src);
  }
  assert.ok(manifest.icons.some((i) => i.sizes === '512x512' && i.type === 'image/png'), 'a 512 px PNG icon');
  const sw = await fetch(daemon.url('/sw.js'));
  assert.match(sw.headers.get('content-type'), /^text\/javascript/);
  assert.equal(sw.headers.get('cache-control'), 'no-cache', 'a new sw.js is seen at once');

  const page = await newPage(t, suite.browser, PHONE);
  await page.goto(daemon.url('/'));
  await page.locator(tid('board')).waitFor();
  assert.equal(await page.locator('link[rel=manifest]').evaluate((l) => l.href), daemon.url('/manifest.webmanifest'));
  const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
  assert.equal(scope, daemon.url('/'));
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);
  // Under its control now: a deep link, the API and the summary stream.
  const runId = await daemon.createRun({ agent: 'mock', message: mock({ say: 'kept out of the cache' }) });
  await daemon.waitForStatus(runId, 'success');
  const fromWorker = [];
  page.on('response', (r) => { if (r.fromServiceWorker()) fromWorker.push(new URL(r.url()).pathname); });
  await page.goto(daemon.url(`/runs/${runId}`));
  await page.locator(tid('message-text'), { hasText: 'kept out of the cache' }).first().waitFor();
  const cached = await page.evaluate(async () => {
    const urls = [];
    for (const name of await caches.keys()) for (const r of await (await caches.open(name)).keys()) urls.push(new URL(r.url).pathname);
    return urls;
  });
  assert.ok(cached.includes('/'), `the shell is not kept: ${cached}`);
  assert.ok(cached.some((p) => p.startsWith('/assets/') && p.endsWith('.js')), `no script is kept: ${cached}`);
  assert.deepEqual(cached.filter((p) => !(p === '/' || p.startsWith('/assets/'))), [], 'the cache holds more than the shell');
  assert.deepEqual(fromWorker.filter((p) => p.startsWith('/api/')), [], 'the service worker answered for the API');

  // Offline, the kept shell still opens and says the daemon does not answer: the API was not kept.
  await page.context().setOffline(true);
  await page.goto(daemon.url('/runs/' + runId)).catch(() => undefined);
  await page.getByText('The daemon did not answer').waitFor();
  await page.context().setOffline(false);
  page.problems.length = 0; // the offline requests failed, as they had to
});

test('under AGENTRY_WEB_BASE_PATH the manifest, icons and service worker live under the prefix', async (t) => {
  const daemon = await Daemon.start({ config: standardConfig(), env: { AGENTRY_WEB_BASE_PATH: '/agentry' }, basePath: '/agentry' });
  t.after(() => daemon.stop());
  const manifest = await fetch(daemon.url('/manifest.webmanifest'));
  assert.equal(manifest.headers.get('content-type'), 'application/manifest+json');
  const page = await newPage(t, suite.browser, PHONE);
  await page.goto(daemon.url('/'));
  await page.locator(tid('board')).waitFor();
  assert.equal(await page.locator('link[rel=manifest]').evaluate((l) => l.href), `${daemon.origin}/agentry/manifest.webmanifest`);
  const scope = await page.evaluate(async () => (await navigator.serviceWorker.ready).scope);
  assert.equal(scope, `${daemon.origin}/agentry/`);
  assert.deepEqual(page.problems, [], problems(page));
});

// Records every notification the page makes (and lets the test click it), over the real
// constructor: the browser context has the permission granted.
function recordNotifications() {
  const Real = window.Notification;
  const shown = [];
  window.__notifications = shown;
  function Recording(title, options) {
    const n = new Real(title, options);
    shown.push({ title, body: options?.body ?? '', tag: options?.tag ?? '', notification: n });
    return n;
  }
  Recording.requestPermission = (...args) => Real.requestPermission(...args);
  Object.defineProperty(Recording, 'permission', { get: () => Real.permission });
  window.Notification = Recording;
}
const notifications = (page) => page.evaluate(() => window.__notifications.map(({ title, body, tag }) => ({ title, body, tag })));

test('notifications: opted in with the board filter as the rule, told once per end or approval, a click opens the run', async (t) => {
  const { daemon } = suite;
  const page = await newPage(t, suite.browser, PHONE);
  await page.context().grantPermissions(['notifications'], { origin: daemon.origin });
  await page.addInitScript(recordNotifications);
  await page.goto(daemon.url('/'));
  await page.locator(tid('board')).waitFor();

  // The rule: the board filtered to "notify-me".
  await page.locator(`input${tid('filter-text')}`).fill('notify-me');
  await page.locator(tid('notify-toggle')).tap();
  await page.locator(tid('notify-sheet')).waitFor();
  await page.locator(tid('notify-enable')).tap();
  await page.locator(tid('notify-state')).waitFor();
  assert.deepEqual(await page.locator(`${tid('notify-rule')} .notify-rule-label`).allTextContents(), ['"notify-me"']);
  const stored = await page.evaluate(() => JSON.parse(localStorage.getItem('agentry.notifications.v1')));
  assert.equal(stored.enabled, true);
  assert.equal(stored.rules[0].filters.text, 'notify-me');
  await shoot(page, 'notifications');
  await page.locator(tid('notify-close')).tap();

  const ends = await daemon.createRun({ agent: 'mock', name: 'notify-me when done', message: mock({ sleepMs: 300 }, { say: 'finished' }) });
  const quiet = await daemon.createRun({ agent: 'mock', name: 'quiet run', message: mock({ sleepMs: 300 }, { say: 'nobody asked' }) });
  const asks = await daemon.createRun({
    agent: 'careful', name: 'notify-me on a question',
    message: mock({ sleepMs: 500 }, { ask: { summary: 'rm -rf build' } }, { say: 'cleaned' }),
  });
  await daemon.waitForStatus(ends, 'success');
  await daemon.waitForStatus(quiet, 'success');
  const pending = await daemon.waitForRun(asks, (r) => r.pendingApprovals?.length === 1, { what: 'a pending approval' });
  const approvalId = pending.pendingApprovals[0].approvalId;
  await until(async () => (await notifications(page)).length === 2, { what: 'two notifications' }).catch(async (e) => {
    throw new Error(`${e.message}: ${JSON.stringify(await notifications(page))}${problems(page)}`);
  });
  await daemon.api('POST', `/api/runs/${asks}/approvals/${approvalId}`, { decision: 'approve' });
  await daemon.waitForStatus(asks, 'success');
  await until(async () => (await notifications(page)).length === 3, { what: 'the third notification' });

  const told = await notifications(page);
  assert.deepEqual(told.map((n) => n.title).sort(), [
    'notify-me on a question ended: success',
    'notify-me on a question needs you',
    'notify-me when done ended: success',
  ]);
  assert.equal(told.find((n) => n.title.endsWith('needs you')).body, 'command: rm -rf build');
  assert.equal(told.find((n) => n.title.endsWith('needs you')).tag, `${asks}:approval:${approvalId}`);
  assert.ok(!told.some((n) => n.title.startsWith('quiet')), 'a run no rule names was told');

  // The daemon restarts: the stream reconnects and the runs are listed again, nothing twice.
  await daemon.restart();
  await until(async () => ((await page.locator(tid('connection-state')).textContent()) ?? '').trim() === 'live',
    { timeoutMs: 20_000, what: 'the stream to reconnect' });
  const again = await daemon.createRun({ agent: 'mock', name: 'notify-me after the restart', message: mock({ say: 'again' }) });
  await daemon.waitForStatus(again, 'success');
  await until(async () => (await notifications(page)).length === 4, { what: 'the fourth notification' });
  const after = await notifications(page);
  assert.equal(after[3].title, 'notify-me after the restart ended: success');
  assert.equal(new Set(after.map((n) => n.tag)).size, 4, `a notification was repeated: ${JSON.stringify(after)}`);

  // A click on one focuses the dashboard on its run.
  await page.evaluate((title) => window.__notifications.find((n) => n.title === title).notification.onclick(), 'notify-me when done ended: success');
  await page.locator(tid('run-view', `[data-run-id="${ends}"]`)).waitFor();
  assert.ok(page.url().endsWith(`/runs/${ends}`), page.url());
  page.problems = page.problems.filter((p) => !/ERR_CONNECTION_REFUSED|ERR_EMPTY_RESPONSE|net::/.test(p)); // the restart
  assert.deepEqual(page.problems, [], problems(page));
});

// Chrome on Android: `new Notification` throws, the service worker shows it instead.
function noNotificationConstructor() {
  const Real = window.Notification;
  function Android() {
    throw new TypeError("Failed to construct 'Notification': Illegal constructor. Use ServiceWorkerRegistration.showNotification() instead.");
  }
  Android.requestPermission = (...args) => Real.requestPermission(...args);
  Object.defineProperty(Android, 'permission', { get: () => Real.permission });
  window.Notification = Android;
}

test('notifications: without a Notification constructor (Chrome on Android) the service worker shows them', async (t) => {
  const { daemon } = suite;
  const page = await newPage(t, suite.browser, PHONE);
  await page.context().grantPermissions(['notifications'], { origin: daemon.origin });
  await page.addInitScript(noNotificationConstructor);
  await page.goto(daemon.url('/'));
  await page.locator(tid('board')).waitFor();
  await page.locator(`input${tid('filter-text')}`).fill('on android');
  await page.locator(tid('notify-toggle')).tap();
  await page.locator(tid('notify-enable')).tap();
  await page.locator(tid('notify-state')).waitFor();
  await page.locator(tid('notify-close')).tap();
  await page.evaluate(() => navigator.serviceWorker.ready);

  const runId = await daemon.createRun({ agent: 'mock', name: 'on android', message: mock({ sleepMs: 300 }, { say: 'done' }) });
  await daemon.waitForStatus(runId, 'success');
  const shown = () => page.evaluate(async () =>
    (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({ title: n.title, tag: n.tag, path: n.data?.path })));
  const list = await until(async () => { const l = await shown(); return l.length ? l : null; }, { what: 'a notification from the service worker' });
  assert.equal(list.length, 1, JSON.stringify(list));
  assert.equal(list[0].title, 'on android ended: success');
  assert.equal(list[0].path, `/runs/${runId}`);
  assert.match(list[0].tag, new RegExp(`^${runId}:ended:`));
  assert.deepEqual(page.problems, [], problems(page));
});
