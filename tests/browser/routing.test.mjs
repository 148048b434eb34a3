// Deep links open the right view in a fresh page, also under AGENTRY_WEB_BASE_PATH, and
// with auth on the dashboard asks for the token before it shows anything.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Daemon, launchBrowser, mockAgent, newPage, tid, until } from './harness.mjs';
import { mock, problems, runRow, standardConfig } from './fixtures.mjs';

let browser;
before(async () => {
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
});

async function withDaemon(t, options) {
  const daemon = await Daemon.start({ config: standardConfig(), ...options });
  t.after(() => daemon.stop());
  return daemon;
}

async function expectRunView(page, runId, status) {
  await page.locator(tid('run-view', `[data-run-id="${runId}"]`)).waitFor({ state: 'visible' }).catch((e) => {
    throw new Error(`no run view for ${runId} at ${page.url()}: ${e.message}${problems(page)}`);
  });
  await until(async () => ((await page.locator(tid('run-header-status')).textContent()) ?? '').trim() === status,
    { what: `the header to show ${status}` });
}

test('deep links to a run and to its tasks tab render in a fresh page', async (t) => {
  const daemon = await withDaemon(t);
  const tasked = await daemon.createRun({ agent: 'mock', assignment: 'tasked', start: false });
  const done = await daemon.createRun({ agent: 'mock', message: mock({ say: 'deep-linked message' }) });
  await daemon.waitForStatus(done, 'success');

  // The HTML the daemon serves for a client-side route is the dashboard.
  const direct = await fetch(daemon.url(`/runs/${done}`));
  assert.equal(direct.status, 200, `GET /runs/<id> answered ${direct.status}: the daemon must serve index.html for dashboard routes`);
  assert.match(direct.headers.get('content-type') ?? '', /text\/html/);

  let page = await newPage(t, browser);
  await page.goto(daemon.url(`/runs/${done}`));
  await expectRunView(page, done, 'success');
  await page.locator(tid('message-text'), { hasText: 'deep-linked message' }).first().waitFor();

  page = await newPage(t, browser);
  await page.goto(daemon.url(`/runs/${tasked}/tasks`));
  await expectRunView(page, tasked, 'initialized');
  const tasks = page.locator(tid('task'));
  await tasks.first().waitFor({ state: 'visible' });
  const ids = await tasks.evaluateAll((els) => els.map((el) => el.getAttribute('data-task-id')));
  const api = await daemon.api('GET', `/api/runs/${tasked}/tasks`);
  assert.deepEqual(ids, api.tasks.map((task) => task.id));
  assert.deepEqual(ids, ['plan', 'build']);
  assert.equal(await page.locator(tid('timeline')).count(), 0, 'the tasks link shows the timeline instead');

  // Edit a task there: status and notes, saved, as the API then shows them.
  const plan = page.locator(tid('task', '[data-task-id="plan"]'));
  await plan.locator(`select${tid('task-status')}`).selectOption('in_progress');
  await plan.locator(tid('task-notes')).fill('Started from the dashboard.');
  await plan.locator(tid('task-save')).click();
  const saved = await until(async () => {
    const { task } = await daemon.api('GET', `/api/runs/${tasked}/tasks/plan`);
    return task.status === 'in_progress' && task.notes === 'Started from the dashboard.' ? task : null;
  }, { what: 'the task edit to reach the daemon' });
  assert.equal(saved.id, 'plan');
  assert.equal((await daemon.api('GET', `/api/runs/${tasked}/tasks/build`)).task.status, 'pending');
});

test('a run in an execution environment says so in its header', async (t) => {
  const config = {
    ...standardConfig(),
    'environments/sandbox.yaml': 'schemaVersion: 1\nkind: bubblewrap\n',
    ...mockAgent({ name: 'boxed', steps: [{ exec: ['sh', '-c', 'echo hi > boxed.txt'] }], extra: 'executionEnvironment: sandbox' }),
  };
  const daemon = await withDaemon(t, { config });
  const boxed = await daemon.createRun({ agent: 'boxed', message: 'go' });
  const host = await daemon.createRun({ agent: 'mock', message: mock({ say: 'on the host' }) });
  await daemon.waitForStatus(boxed, 'success');
  await daemon.waitForStatus(host, 'success');
  const page = await newPage(t, browser);
  await page.goto(daemon.url(`/runs/${boxed}`));
  await expectRunView(page, boxed, 'success');
  const shown = ((await page.locator(tid('run-environment')).textContent()) ?? '').replace(/\s+/g, ' ').trim();
  assert.equal(shown, '· in bubblewrap sandbox');
  await page.goto(daemon.url(`/runs/${host}`));
  await expectRunView(page, host, 'success');
  assert.equal(await page.locator(tid('run-environment')).count(), 0, 'a run on the host shows no environment');
});

test('under AGENTRY_WEB_BASE_PATH=/agentry the dashboard and its deep links work', async (t) => {
  const daemon = await withDaemon(t, { env: { AGENTRY_WEB_BASE_PATH: '/agentry' }, basePath: '/agentry' });
  const config = await (await fetch(`${daemon.origin}/app-config.json`)).json();
  assert.equal(config.webBasePath, '/agentry');
  // The API helpers go through the prefix too (daemon.baseUrl ends in /agentry).
  const runId = await daemon.createRun({ agent: 'mock', message: mock({ say: 'served under a prefix' }) });
  await daemon.waitForStatus(runId, 'success');

  const page = await newPage(t, browser);
  const requests = [];
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  await page.goto(daemon.url(`/runs/${runId}`));
  await expectRunView(page, runId, 'success');
  await page.locator(tid('message-text'), { hasText: 'served under a prefix' }).first().waitFor();
  const html = await (await fetch(daemon.url(`/runs/${runId}`))).text();
  assert.match(html, /<base href="\/agentry\/?"/, 'index.html\'s <base href> names the prefix');
  const outside = requests.filter((p) => !p.startsWith('/agentry/') && p !== '/agentry');
  assert.deepEqual(outside, [], 'the page requested paths outside the base path');

  await page.locator(tid('nav-board')).click();
  await page.locator(runRow(runId)).waitFor();
  assert.ok(new URL(page.url()).pathname.startsWith('/agentry'), `the board left the prefix: ${page.url()}`);
});

test('with auth on, the dashboard asks for the token and refuses a wrong one', async (t) => {
  const token = 'browser-test-token-0123456789';
  const daemon = await withDaemon(t, {
    env: { AGENTRY_DAEMON_AUTH_ENABLED: 'true', AGENTRY_DAEMON_TOKEN: token },
    token,
  });
  const runId = await daemon.createRun({ agent: 'mock', message: mock({ say: 'behind the token' }), name: 'guarded' });
  await daemon.waitForStatus(runId, 'success');
  assert.equal((await daemon.call('GET', '/api/runs', undefined, { token: null })).status, 401);

  const page = await newPage(t, browser);
  await page.goto(daemon.url('/'));
  const form = page.locator(`form${tid('token-form')}`);
  await form.waitFor({ state: 'visible' });
  assert.equal(await page.locator(runRow(runId)).count(), 0, 'a run shows before the token is given');

  await form.locator('input[name=token]').fill('not-the-token');
  await form.locator('input[name=token]').press('Enter');
  await page.locator(tid('token-error')).waitFor({ state: 'visible' });
  assert.equal(await page.locator(runRow(runId)).count(), 0);

  await form.locator('input[name=token]').fill(token);
  await form.locator('input[name=token]').press('Enter');
  await page.locator(tid('board')).waitFor();
  await page.locator(runRow(runId)).waitFor();
  assert.equal(((await page.locator(`${runRow(runId)} ${tid('run-status')}`).textContent()) ?? '').trim(), 'success');
  await until(async () => ((await page.locator(tid('connection-state')).textContent()) ?? '').trim() === 'live',
    { what: 'connection-state live' });
  assert.equal(await page.locator(tid('token-error')).count() === 0 || !(await page.locator(tid('token-error')).isVisible()), true);
});

test('the page says it is reconnecting while the daemon restarts, then catches up', async (t) => {
  const daemon = await withDaemon(t);
  const before = await daemon.createRun({ agent: 'mock', message: mock({ say: 'before the restart' }), name: 'before' });
  await daemon.waitForStatus(before, 'success');

  const page = await newPage(t, browser);
  await page.goto(daemon.url('/'));
  await page.locator(runRow(before)).waitFor();
  const state = async () => ((await page.locator(tid('connection-state')).textContent()) ?? '').trim();
  await until(async () => (await state()) === 'live', { what: 'connection-state live' });

  await daemon.restart({
    whileDown: () => until(async () => (await state()) === 'reconnecting', { what: 'connection-state reconnecting while the daemon is down' }),
  });
  const after = await daemon.createRun({ agent: 'mock', message: mock({ say: 'after the restart' }), name: 'after' });
  await daemon.waitForStatus(after, 'success');
  await until(async () => (await state()) === 'live', { what: 'connection-state live again', timeoutMs: 20_000 });
  await page.locator(runRow(after)).waitFor({ timeout: 20_000 });
  assert.equal(((await page.locator(`${runRow(after)} ${tid('run-status')}`).textContent()) ?? '').trim(), 'success');
  await page.locator(runRow(before)).waitFor();
});
