// The Members view (/members) against real daemons: the one daemon of a SQLite home lists
// itself, alive, with its URL; its labels and capacity as it was started with them; the
// live-run count following a run through the 2 s refresh, and the run's page naming the
// member that holds it; an error line while the
// request fails and its recovery; no more requests once the view is left. Everything
// the page shows is compared with GET /api/daemons.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { Daemon, launchBrowser, newPage, tid, until } from './harness.mjs';
import { mock, problems, standardConfig } from './fixtures.mjs';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

async function withDaemon(t, options = {}) {
  const daemon = await Daemon.start({ config: standardConfig(), ...options });
  t.after(() => daemon.stop());
  return daemon;
}

const text = async (locator) => ((await locator.textContent()) ?? '').trim();

/** Opens the board, then Members from the navigation, as a user does. */
async function openMembers(t, daemon) {
  const page = await newPage(t, browser);
  await page.goto(daemon.url('/'));
  await page.locator(tid('nav-members')).click();
  await page.locator(tid('members-row')).first().waitFor().catch((e) => {
    throw new Error(`no member row at ${page.url()}: ${e.message}${problems(page)}`);
  });
  return page;
}

test('the one daemon of a SQLite home lists itself: alive, 0 live runs, its URL', async (t) => {
  const daemon = await withDaemon(t);
  const { daemons } = await daemon.api('GET', '/api/daemons');
  assert.equal(daemons.length, 1, `GET /api/daemons: ${JSON.stringify(daemons)}`);
  const [me] = daemons;
  assert.equal(me.self, true);
  assert.equal(me.capacity, null);

  const page = await openMembers(t, daemon);
  assert.equal(new URL(page.url()).pathname, '/members');
  const rows = page.locator(tid('members-row'));
  assert.equal(await rows.count(), 1);
  const row = rows.first();
  assert.equal(await row.getAttribute('data-daemon-id'), me.daemonId);
  assert.equal(await row.getAttribute('data-self'), 'true');
  assert.equal(await row.locator(tid('member-self')).count(), 1, 'the daemon serving the page is not marked');
  assert.equal(await text(row.locator(tid('member-name'))), me.name);
  const state = row.locator(tid('member-state'));
  assert.equal(await text(state), 'alive');
  assert.equal(await state.getAttribute('data-state'), 'alive');
  assert.match(await state.getAttribute('class'), /\bms-ok\b/, 'alive is not shown in the "ok" colour');
  assert.equal(await text(row.locator(tid('member-runs'))), '0');
  assert.equal(await row.locator(tid('member-label')).count(), 0);
  const urlShown = await text(row.locator(tid('member-url')));
  assert.equal(urlShown, me.advertiseUrl);
  assert.ok(urlShown.includes(`127.0.0.1:${daemon.port}`), `the advertised URL ${urlShown} is not this daemon's listen address`);
  assert.match(await text(row.locator(tid('member-heartbeat'))), /^heard from \d+s ago$/);
  const meta = await text(row.locator(tid('member-meta')));
  assert.ok(meta.includes(me.host) && meta.includes(`pid ${me.pid}`), `the secondary line is ${JSON.stringify(meta)}`);
  assert.equal(await text(page.locator(tid('members-summary'))), '1 member: 1 alive');
  assert.equal(await page.locator(tid('members-error')).count(), 0);
});

test('labels and capacity as the daemon was started with them; the live-run count follows a run', async (t) => {
  const daemon = await withDaemon(t, {
    env: { AGENTRY_LABELS: 'gpu,region=eu', AGENTRY_MAX_LIVE_RUNS: '12', AGENTRY_DAEMON_NAME: 'edge-1' },
  });
  const [me] = (await daemon.api('GET', '/api/daemons')).daemons;
  assert.deepEqual(me.labels, ['gpu', 'region=eu']);
  assert.equal(me.capacity, 12);

  const page = await openMembers(t, daemon);
  const row = page.locator(tid('members-row')).first();
  assert.equal(await text(row.locator(tid('member-name'))), 'edge-1');
  assert.deepEqual(await row.locator(tid('member-label')).allTextContents(), ['gpu', 'region=eu']);
  assert.equal(await text(row.locator(tid('member-runs'))), '0 / 12');

  // A run that stays live: the next heartbeat counts it, the next refresh shows it.
  const runId = await daemon.createRun({ agent: 'mock', message: mock({ sleepMs: 60_000 }) });
  // Ends the run before the daemon stops (a stopped daemon's refusal is not this test's).
  t.after(() => daemon.call('POST', `/api/runs/${runId}/abort`, {}).catch(() => {}));
  await daemon.waitForStatus(runId, 'running');
  await until(async () => (await text(row.locator(tid('member-runs')))) === '1 / 12', {
    timeoutMs: 20_000,
    what: 'the row to show 1 / 12 live runs',
  });
  const api = (await daemon.api('GET', '/api/daemons')).daemons[0];
  assert.equal(api.liveRuns, 1);

  // The run's page names the member that holds it (RunDetail.owner) and links to the members.
  const { run } = await daemon.api('GET', `/api/runs/${runId}`);
  assert.equal(run.owner?.daemonId, me.daemonId, `owner: ${JSON.stringify(run.owner)}`);
  const runPage = await newPage(t, browser);
  await runPage.goto(daemon.url(`/runs/${runId}`));
  const owner = runPage.locator(tid('run-owner'));
  await owner.waitFor();
  assert.equal(await text(owner), '· on edge-1');
  assert.match(await owner.getAttribute('title'), new RegExp(`lease epoch ${run.owner.epoch}`));
  await owner.locator('a').click();
  await runPage.locator(tid('members-row')).first().waitFor();
  assert.equal(new URL(runPage.url()).pathname, '/members');
});

test('a failing request shows an error line that the next success clears; leaving the view stops the requests', async (t) => {
  const daemon = await withDaemon(t);
  const page = await openMembers(t, daemon);
  const asked = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/api/daemons') asked.push(Date.now());
  });

  // The view asks again by itself, every 2 s.
  await until(() => asked.length >= 2, { timeoutMs: 8000, what: 'two more requests to /api/daemons' });
  const gap = asked[1] - asked[0];
  assert.ok(gap >= 1500 && gap < 5000, `requests ${gap} ms apart, not about 2 s`);

  // The daemon answers 503 for a while: the error line shows, the last list stays.
  await page.route('**/api/daemons', (route) => route.fulfill({
    status: 503,
    contentType: 'application/json',
    body: JSON.stringify({ error: { code: 'UNAVAILABLE', message: 'the database is unavailable: test' } }),
  }));
  const error = page.locator(tid('members-error'));
  await error.waitFor({ timeout: 8000 });
  assert.match(await text(error), /the database is unavailable: test/);
  assert.equal(await page.locator(tid('members-row')).count(), 1, 'the last list is gone while the request fails');

  // It answers again: the error line goes at the next success.
  await page.unroute('**/api/daemons');
  await error.waitFor({ state: 'detached', timeout: 8000 });
  assert.equal(await text(page.locator(tid('member-state'))), 'alive');

  // Leaving the view stops the polling.
  await page.locator(tid('nav-board')).click();
  await page.locator(tid('board')).waitFor();
  await sleep(300); // a request already on its way may still be counted
  const count = asked.length;
  await sleep(4500);
  assert.equal(asked.length, count, `${asked.length - count} requests to /api/daemons after the view was left`);
});
