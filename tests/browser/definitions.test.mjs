// The Definitions and System pages against a real daemon: every kind of definition is
// listed as GET /api/<kind> lists it, an entry opens to its whole file, and the System
// page shows the daemon and the backends GET /api/daemon and /api/backends report.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Daemon, launchBrowser, newPage, tid } from './harness.mjs';
import { problems, standardConfig } from './fixtures.mjs';

let browser;
let daemon;
before(async () => {
  browser = await launchBrowser();
  daemon = await Daemon.start({ config: standardConfig() });
});
after(async () => {
  await daemon?.stop();
  await browser?.close();
});

const text = async (locator) => ((await locator.textContent()) ?? '').trim();

test('the definitions page lists each kind as the API does, and an entry opens to its file', async (t) => {
  const page = await newPage(t, browser);
  await page.goto(daemon.url('/'));
  await page.locator(tid('nav-definitions')).click();
  const agentsKind = page.locator(tid('definitions-agents'));
  await agentsKind.locator(tid('definition')).first().waitFor().catch((e) => {
    throw new Error(`no agent listed at ${page.url()}: ${e.message}${problems(page)}`);
  });
  assert.equal(new URL(page.url()).pathname, '/definitions');

  for (const [kind, route, key] of [
    ['agents', '/api/agents', 'agents'],
    ['assignments', '/api/assignments', 'assignments'],
  ]) {
    const listed = (await daemon.api('GET', route))[key].entries.map((e) => e.name).sort();
    assert.ok(listed.length > 0, `${route} lists nothing`);
    const section = page.locator(tid(`definitions-${kind}`));
    await section.locator(tid('definition')).first().waitFor();
    const shown = (await section.locator(tid('definition')).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-name')))).sort();
    assert.deepEqual(shown, listed, `the ${kind} shown differ from ${route}`);
  }
  for (const kind of ['launchers', 'environments', 'task-definitions']) {
    const section = page.locator(tid(`definitions-${kind}`));
    assert.equal(await section.count(), 1, `no ${kind} section`);
  }
  assert.equal(await page.locator('.def-kind .error').count(), 0, `a kind failed to load${problems(page)}`);

  const row = agentsKind.locator(tid('definition', '[data-name="careful"]'));
  await row.locator('summary').click();
  const detail = agentsKind.locator('.def-detail');
  await detail.waitFor();
  assert.match(await text(detail), /Asks before acting/, 'the opened agent does not show its file');
  assert.deepEqual(page.problems, []);
});

test('the system page shows the daemon and its backends as the API reports them', async (t) => {
  const { daemon: info } = await daemon.api('GET', '/api/daemon');
  const { backends } = await daemon.api('GET', '/api/backends');
  const page = await newPage(t, browser);
  await page.goto(daemon.url('/'));
  await page.locator(tid('nav-system')).click();
  const table = page.locator(tid('daemon-info'));
  await table.waitFor().catch((e) => {
    throw new Error(`no daemon info at ${page.url()}: ${e.message}${problems(page)}`);
  });
  assert.match(await text(table), new RegExp(`version\\s*${info.version.replace(/[.+]/g, '\\$&')}`));
  assert.match(await text(table), new RegExp(String(info.pid)));
  await page.locator(tid('backend')).first().waitFor();
  const shown = (await page.locator(tid('backend')).evaluateAll((rows) => rows.map((r) => r.getAttribute('data-backend-id')))).sort();
  assert.deepEqual(shown, backends.map((b) => b.id).sort());
  assert.equal(await page.locator('.system .error').count(), 0);
  assert.deepEqual(page.problems, []);
});
