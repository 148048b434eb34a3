// A run's life in the dashboard, against a real daemon and the mock backend: created from
// the form and streamed live, approvals approved and denied, follow-ups queued, aborted,
// found with the board's filters and archived, and a page reloaded while a message
// streams. Every outcome the page shows is also checked through the API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { newPage, sharedDaemonAndBrowser, tid, until } from './harness.mjs';
import {
  FEATURE_TEXT, headerStatus, waitHeaderStatus, mock, openRun, problems, runAction, runRow, setControl, standardConfig, timelineItems,
} from './fixtures.mjs';

const suite = sharedDaemonAndBrowser(standardConfig());

test('a run created from the form streams its message live and ends in success', async (t) => {
  const page = await newPage(t, suite.browser);
  await page.goto(suite.daemon.url('/'));
  await page.locator(tid('board')).waitFor();
  await page.locator(tid('new-run')).click();
  const form = page.locator(`form${tid('new-run-form')}`);
  await form.waitFor();

  await form.locator('select[name=agent]').selectOption('mock');
  await form.locator('select[name=assignment]').selectOption('feature');
  for (const name of ['feature', 'count', 'urgent', 'size']) {
    await form.locator(`[name="var.${name}"]`).waitFor({ state: 'attached' });
  }
  await form.locator('input[name=cwd]').fill(suite.daemon.work);

  // The required var left empty: the form says so, without asking the daemon, and
  // creates nothing.
  const posts = [];
  const onRequest = (r) => { if (r.method() === 'POST') posts.push(new URL(r.url()).pathname); };
  page.on('request', onRequest);
  await form.locator('[name="var.feature"]').fill('');
  await form.locator(tid('submit-start')).click();
  await page.locator(tid('form-error')).waitFor({ state: 'visible' });
  assert.notEqual((await page.locator(tid('form-error')).textContent()).trim(), '', 'form-error is empty');
  await sleep(300);
  page.off('request', onRequest);
  assert.deepEqual(posts, [], 'the invalid form was sent to the suite.daemon (the check is not client-side)');
  assert.deepEqual(await suite.daemon.runIds(), [], 'an invalid form created a run');
  assert.ok(!/\/runs\/[^/]+$/.test(new URL(page.url()).pathname), `an invalid form navigated to ${page.url()}`);

  const vars = { feature: 'dark mode', count: 3, urgent: true, size: 'large' };
  for (const [name, value] of Object.entries(vars)) await setControl(form.locator(`[name="var.${name}"]`), value);
  await form.locator(tid('submit-start')).click();
  await page.waitForURL(/\/runs\/[^/?#]+$/);
  const runId = new URL(page.url()).pathname.split('/').pop();
  await page.locator(tid('run-view', `[data-run-id="${runId}"]`)).waitFor();

  // Watch the streamed message grow until the run ends.
  const expected = FEATURE_TEXT(vars);
  const samples = [];
  const text = page.locator(`${tid('timeline')} ${tid('message-text')}`).last();
  const status = page.locator(tid('run-header-status'));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if ((await text.count()) > 0) {
      const now = (await text.textContent()) ?? '';
      if (samples.at(-1) !== now) samples.push(now);
    }
    const shown = ((await status.textContent()) ?? '').trim();
    if (shown === 'success' && samples.at(-1) === expected) break;
    if (Date.now() > deadline) {
      assert.fail(`run ${runId}: header status ${JSON.stringify(shown)}, message samples ${JSON.stringify(samples)}${problems(page)}`);
    }
    await sleep(40);
  }
  const partial = samples.filter((s) => s.length > 0 && s.length < expected.length);
  assert.ok(partial.length >= 2, `the message did not visibly grow while streaming: samples ${JSON.stringify(samples)}`);
  for (const s of samples) assert.ok(expected.startsWith(s.trimEnd()), `sample ${JSON.stringify(s)} is not a prefix of the message`);
  for (let i = 1; i < samples.length; ++i) {
    assert.ok(samples[i].length >= samples[i - 1].length, `the message shrank: ${JSON.stringify(samples)}`);
  }

  const run = await suite.daemon.run(runId);
  assert.equal(run.status, 'success');
  assert.equal(run.agent, 'mock');
  assert.equal(run.assignment, 'feature');
  assert.equal(run.cwd, suite.daemon.work, 'the cwd the form sent');
  assert.deepEqual(
    { feature: run.vars.feature, count: run.vars.count, urgent: run.vars.urgent, size: run.vars.size },
    vars, 'the vars the form sent');
  const completed = (await suite.daemon.timeline(runId)).filter((e) => e.kind === 'message.completed');
  assert.deepEqual(completed.map((e) => e.payload.text), [expected]);
});

test('an approval answered in the run view lets the run go on to success', async (t) => {
  // The run asks a moment after it starts, while its view is open: the question arrives live.
  const page = await newPage(t, suite.browser);
  await page.goto(suite.daemon.url('/'));
  await page.locator(tid('board')).waitFor();
  const runId = await suite.daemon.createRun({
    agent: 'careful',
    message: `Clean up.\n${mock({ sleepMs: 1500 }, { ask: { summary: 'rm -rf build' } }, { say: 'Cleaned up after approval.' })}`,
  });
  await openRun(page, suite.daemon, runId);
  // On the timeline tab (the run view's default), with the timeline on screen.
  await page.locator(tid('timeline')).waitFor();
  const anyApproval = page.locator(tid('approval')).first();
  await anyApproval.waitFor({ state: 'visible' });
  const pending = await suite.daemon.waitForRun(runId, (r) => r.pendingApprovals?.length === 1, { what: 'a pending approval' });
  const approvalId = pending.pendingApprovals[0].approvalId;
  assert.equal(await anyApproval.getAttribute('data-approval-id'), approvalId);
  const approval = page.locator(tid('approval', `[data-approval-id="${approvalId}"]`)).first();
  assert.match(await approval.textContent(), /rm -rf build/);
  await approval.locator(tid('approve')).click();

  await suite.daemon.waitForStatus(runId, 'success');
  await waitHeaderStatus(page, 'success');
  await page.locator(tid('message-text'), { hasText: 'Cleaned up after approval.' }).first().waitFor();

  const run = await suite.daemon.run(runId);
  assert.deepEqual(run.pendingApprovals, []);
  const answered = (await suite.daemon.audit(runId)).filter((e) => e.type === 'run.approval_answered');
  assert.equal(answered.length, 1, 'one answer recorded');
  assert.equal(answered[0].data.approvalId, approvalId);
  assert.equal(answered[0].data.decision, 'approve');
  assert.equal(await approval.locator(tid('approve')).count() === 0 || await approval.locator(tid('approve')).isDisabled(), true,
    'the answered approval still offers approve');
});

test('a denied approval ends the run in error', async (t) => {
  const runId = await suite.daemon.createRun({
    agent: 'careful',
    message: `Delete the cache.\n${mock({ ask: { summary: 'rm -rf cache' } }, { say: 'never said' })}`,
  });
  const pending = await suite.daemon.waitForRun(runId, (r) => r.pendingApprovals?.length === 1, { what: 'a pending approval' });
  const approvalId = pending.pendingApprovals[0].approvalId;
  const page = await newPage(t, suite.browser);
  await openRun(page, suite.daemon, runId);
  await page.locator(tid('tab-approvals')).click();
  const approval = page.locator(tid('approval', `[data-approval-id="${approvalId}"]`)).first();
  await approval.waitFor({ state: 'visible' });
  await approval.locator(tid('deny')).click();
  await suite.daemon.waitForStatus(runId, 'error');
  await waitHeaderStatus(page, 'error');
  const answered = (await suite.daemon.audit(runId)).filter((e) => e.type === 'run.approval_answered');
  assert.deepEqual(answered.map((e) => [e.data.approvalId, e.data.decision]), [[approvalId, 'deny']]);
  const said = (await suite.daemon.timeline(runId)).filter((e) => e.kind === 'message.completed');
  assert.deepEqual(said, [], 'the run went on after a denial');
});

test('follow-ups queued on a running run can be added and removed', async (t) => {
  const runId = await suite.daemon.createRun({ agent: 'mock', message: mock({ hang: true }) });
  await suite.daemon.waitForStatus(runId, 'running');

  const page = await newPage(t, suite.browser);
  await openRun(page, suite.daemon, runId);
  await page.locator(tid('tab-queue')).click();
  const input = page.locator(tid('queue-input'));
  const items = page.locator(tid('queued-item'));
  const add = async (text, count) => {
    await input.fill(text);
    await page.locator(tid('queue-add')).click();
    await until(async () => (await items.count()) === count, { what: `${count} queued items after adding "${text}"` });
  };
  await add('first follow-up', 1);
  await add('second follow-up', 2);
  await items.filter({ hasText: 'first follow-up' }).locator(tid('queue-remove')).click();
  await until(async () => (await items.count()) === 1, { what: 'the first follow-up to leave the queue' });
  await add('third follow-up', 2);

  const shown = (await items.allTextContents()).map((s) => s.trim());
  assert.ok(shown[0].includes('second follow-up') && shown[1].includes('third follow-up'), `queue shows ${JSON.stringify(shown)}`);
  const { messages } = await suite.daemon.api('GET', `/api/runs/${runId}/queued-resume-messages`);
  assert.deepEqual(messages.map((m) => m.text), ['second follow-up', 'third follow-up']);
  assert.equal((await suite.daemon.run(runId)).status, 'running');
  const audit = await suite.daemon.audit(runId);
  assert.equal(audit.filter((e) => e.type === 'run.message_queued').length, 3);
  assert.equal(audit.filter((e) => e.type === 'run.message_removed').length, 1);

  await suite.daemon.api('POST', `/api/runs/${runId}/abort`, {});
  await suite.daemon.waitForStatus(runId, 'aborted');
});

test('abort ends a running run; the board filters by status and text; an archived run shows only with the archived filter', async (t) => {
  const hanging = await suite.daemon.createRun({ agent: 'mock', message: mock({ hang: true }), name: 'hangs until aborted' });
  const finished = await suite.daemon.createRun({ agent: 'mock', message: mock({ say: 'short and done' }), name: 'to be archived' });
  await suite.daemon.waitForStatus(hanging, 'running');
  await suite.daemon.waitForStatus(finished, 'success');

  const page = await newPage(t, suite.browser);
  await openRun(page, suite.daemon, hanging);
  await waitHeaderStatus(page, 'running');
  await runAction(page, 'abort', async () => (await suite.daemon.run(hanging)).status === 'aborted');
  await waitHeaderStatus(page, 'aborted');

  await page.locator(tid('nav-board')).click();
  await openRun(page, suite.daemon, finished);
  await runAction(page, 'archive', async () => (await suite.daemon.run(finished)).archived === true);

  await page.locator(tid('nav-board')).click();
  await page.locator(tid('board')).waitFor();
  await page.locator(runRow(hanging)).waitFor();
  assert.equal(((await page.locator(`${runRow(hanging)} ${tid('run-status')}`).textContent()) ?? '').trim(), 'aborted');
  await until(async () => (await page.locator(runRow(finished)).count()) === 0, { what: 'the archived run to leave the board' });

  // The filters: by status, then by text (the run's name).
  await page.locator(`select${tid('filter-status')}`).selectOption('aborted');
  await until(async () => (await page.locator(tid('run-row')).count()) > 0 &&
    (await page.locator(`${tid('run-row')} ${tid('run-status')}`).allTextContents()).every((x) => x.trim() === 'aborted'),
  { what: 'only aborted runs on the board' });
  await page.locator(runRow(hanging)).waitFor();
  await page.locator(`select${tid('filter-status')}`).selectOption('');
  await page.locator(`input${tid('filter-text')}`).fill('hangs until');
  await until(async () => (await page.locator(tid('run-row')).count()) === 1, { what: 'one run matching "hangs until"' });
  await page.locator(runRow(hanging)).waitFor();
  await page.locator(`input${tid('filter-text')}`).fill('');

  await page.locator(`input[type=checkbox]${tid('filter-archived')}`).check();
  await page.locator(runRow(finished)).waitFor();
  await page.locator(`input[type=checkbox]${tid('filter-archived')}`).uncheck();
  await until(async () => (await page.locator(runRow(finished)).count()) === 0, { what: 'the archived run to hide again' });

  const listed = await suite.daemon.runIds({ includeArchived: false });
  assert.ok(listed.includes(hanging) && !listed.includes(finished));
  assert.equal((await suite.daemon.run(hanging)).status, 'aborted');
});

test('a slow answer to an action does not undo the newer state the stream brought', async (t) => {
  // Abort answers at once with the run still running; the stream then says aborted. Here
  // the answer is held back until the page has shown aborted from the stream, as a slow
  // network may: the page must keep the newer state (the run's revision says which).
  const runId = await suite.daemon.createRun({ agent: 'mock', message: mock({ hang: true }), name: 'slow answer' });
  await suite.daemon.waitForStatus(runId, 'running');
  const page = await newPage(t, suite.browser);
  await openRun(page, suite.daemon, runId);
  await waitHeaderStatus(page, 'running');
  let answer = null;
  await page.route('**/api/runs/*/abort', async (route) => {
    const response = await route.fetch();
    answer = await response.json();
    await waitHeaderStatus(page, 'aborted').catch(() => {});
    await route.fulfill({ response });
  });
  await runAction(page, 'abort', async () => (await suite.daemon.run(runId)).status === 'aborted' && answer !== null);
  assert.equal(answer.run.status, 'running', 'the abort answered with the run still running (the stream tells the end)');
  await sleep(1000);
  const run = await suite.daemon.run(runId);
  assert.equal(run.status, 'aborted');
  assert.ok(run.revision > answer.run.revision);
  assert.equal(await headerStatus(page), 'aborted',
    `the header went back to the abort answer's stale state (revision ${answer.run.revision}; the run is at ${run.revision})`);
});

test('reloading mid-stream loses and doubles nothing', async (t) => {
  const texts = [
    'First message, said at once.',
    'The second message streams slowly, piece by piece, while the page reloads in the middle of it.',
    'Third message, after the stream.',
  ];
  const page = await newPage(t, suite.browser);
  await page.goto(suite.daemon.url('/'));
  await page.locator(tid('board')).waitFor();
  const runId = await suite.daemon.createRun({
    agent: 'mock',
    message: mock({ say: texts[0] }, { say: texts[1], deltas: 30, rateHz: 5 }, { say: texts[2] }),
  });
  await openRun(page, suite.daemon, runId);
  const streaming = page.locator(tid('message-text'), { hasText: 'The second message' });
  await until(async () => {
    const shown = (await streaming.count()) ? await streaming.last().textContent() : '';
    return shown.length > 20 && shown.length < texts[1].length * 0.7;
  }, { what: `the second message to be streaming${problems(page)}` });
  assert.equal((await suite.daemon.run(runId)).status, 'running', 'the run ended before the reload');
  await page.reload();
  await page.locator(tid('run-view', `[data-run-id="${runId}"]`)).waitFor();
  // Back while it still streams: the text so far comes back (one merged delta), then grows.
  let resumed = '';
  await until(async () => {
    resumed = (await streaming.count()) ? (await streaming.last().textContent()) ?? '' : '';
    return resumed.length > 20 || (await suite.daemon.run(runId)).status !== 'running';
  }, { what: 'the streaming message after the reload' });
  if ((await suite.daemon.run(runId)).status === 'running') {
    assert.ok(texts[1].startsWith(resumed), `after the reload the message reads ${JSON.stringify(resumed)}`);
  }

  await suite.daemon.waitForStatus(runId, 'success');
  const history = await suite.daemon.timeline(runId);
  await waitHeaderStatus(page, 'success');
  await until(async () => (await timelineItems(page)).length >= history.length, {
    what: `${history.length} timeline items`, timeoutMs: 5000,
  }).catch(() => {});
  await sleep(300); // let any late (doubled) event arrive before counting

  const items = await timelineItems(page);
  const messages = items.filter((i) => i.kind === 'message').map((i) => i.text);
  assert.deepEqual(messages, texts, 'each message once, complete, in order');
  assert.deepEqual(history.filter((e) => e.kind === 'message.completed').map((e) => e.payload.text), texts);

  const cursors = items.map((i) => i.cursor).filter((c) => c !== null && c !== '');
  assert.equal(new Set(cursors).size, cursors.length, `an item is doubled: cursors ${JSON.stringify(cursors)}`);
  assert.equal(items.length, history.length,
    `the page shows ${items.length} items (${items.map((i) => i.kind).join(',')}); the history has ${history.length} events (${history.map((e) => e.kind).join(',')})`);
  assert.deepEqual(cursors.map(Number).sort((a, b) => a - b), history.map((e) => e.cursor), 'the items are the history\'s events');
  const count = await page.locator(tid('timeline')).getAttribute('data-count');
  assert.equal(Number(count), history.length, 'timeline data-count');
});
