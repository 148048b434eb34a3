// The run view's composer against a real daemon and the mock backend: a message queued
// with attachments (one picked, one dropped) while the run works lands in its queue and
// its attachments; a finished run resumed with a message, then walked back with the
// arrow keys; a finished run started over with changed vars (reset, reconfigure, resume:
// the API changes vars only before a first session) runs its new session with them. Each
// outcome is checked through the API. With AGENTRY_SCREENSHOTS_DIR it also writes
// dashboard-composer-<desktop|phone>.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { newPage, screenshotsDir, sharedDaemonAndBrowser, tid, until } from './harness.mjs';
import { FEATURE_TEXT, mock, openRun, problems, setControl, standardConfig, waitHeaderStatus } from './fixtures.mjs';

const suite = sharedDaemonAndBrowser(standardConfig());

const composer = (page) => page.locator(tid('composer'));

/// Drops files on the composer as a drag from the desktop does (a DataTransfer of Files).
async function dropFiles(page, files) {
  const transfer = await page.evaluateHandle((list) => {
    const dt = new DataTransfer();
    for (const f of list) dt.items.add(new File([f.text], f.name, { type: f.type }));
    return dt;
  }, files);
  await composer(page).dispatchEvent('dragover', { dataTransfer: transfer });
  await composer(page).dispatchEvent('drop', { dataTransfer: transfer });
}

test('a message queued with attachments while the run works is in its queue, the files in its attachments', async (t) => {
  const runId = await suite.daemon.createRun({ agent: 'mock', message: mock({ hang: true }), name: 'queue with files' });
  await suite.daemon.waitForStatus(runId, 'running');
  const page = await newPage(t, suite.browser);
  await openRun(page, suite.daemon, runId);

  // Running: the composer queues; resuming is not offered.
  await until(async () => (await composer(page).getAttribute('data-mode')) === 'queue', { what: `the composer in queue mode${problems(page)}` });
  assert.equal(await page.locator(tid('composer-mode-resume')).isDisabled(), true, 'resume offered on a running run');
  assert.equal((await page.locator(tid('composer-send')).textContent()).trim(), 'Queue');

  await page.locator(tid('composer-input')).fill('Also update the changelog.');
  await page.locator(tid('composer-file-input')).setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('remember the milk\n') });
  await dropFiles(page, [{ name: 'spec.md', type: 'text/markdown', text: '# Spec\n\nDo it well.\n' }, { name: 'drop-me.txt', type: 'text/plain', text: 'x' }]);
  const rows = page.locator(tid('composer-file'));
  await until(async () => (await rows.count()) === 3, { what: '3 files in the composer' });
  await rows.filter({ hasText: 'drop-me.txt' }).locator(tid('composer-file-remove')).click();
  await until(async () => (await rows.count()) === 2, { what: 'the removed file to leave the list' });
  assert.deepEqual(await suite.daemon.api('GET', `/api/runs/${runId}/attachments?scope=run`).then((a) => a.attachments), [],
    'a file was uploaded before the message was sent');

  await page.locator(tid('composer-send')).click();
  await until(async () => (await page.locator(tid('composer-input')).inputValue()) === '' && (await rows.count()) === 0,
    { what: `the composer to clear after sending${problems(page)}` });

  const { messages } = await suite.daemon.api('GET', `/api/runs/${runId}/queued-resume-messages`);
  assert.deepEqual(messages.map((m) => m.text), ['Also update the changelog.']);
  const { attachments } = await suite.daemon.api('GET', `/api/runs/${runId}/attachments?scope=run`);
  assert.deepEqual(attachments.map((a) => [a.name, a.size, a.contentType]).sort(),
    [['notes.txt', 18, 'text/plain'], ['spec.md', Buffer.byteLength('# Spec\n\nDo it well.\n'), 'text/markdown']]);
  const audit = await suite.daemon.audit(runId);
  assert.equal(audit.filter((e) => e.type === 'attachment.added').length, 2);
  assert.equal(audit.filter((e) => e.type === 'run.message_queued').length, 1);
  assert.ok(audit.findIndex((e) => e.type === 'run.message_queued') > audit.findLastIndex((e) => e.type === 'attachment.added'),
    'the message was queued before its attachments were uploaded');

  // The queue tab shows it, as the API does.
  await page.locator(tid('tab-queue')).click();
  await page.locator(tid('queued-item', `[data-message-id="${messages[0].id}"]`), { hasText: 'Also update the changelog.' }).waitFor();

  if (process.env.AGENTRY_SCREENSHOTS_DIR) await page.locator(tid('tab-timeline')).click();
  await suite.daemon.api('POST', `/api/runs/${runId}/abort`, {});
  await suite.daemon.waitForStatus(runId, 'aborted');
  // Aborted by the user: the message stays queued, and the composer offers resume now.
  await until(async () => (await composer(page).getAttribute('data-mode')) === 'resume', { what: 'the composer in resume mode after the abort' });
  assert.equal((await suite.daemon.api('GET', `/api/runs/${runId}/queued-resume-messages`)).messages.length, 1);
});

test('a finished run resumes with the message, and the arrow keys bring it back', async (t) => {
  const runId = await suite.daemon.createRun({ agent: 'mock', message: mock({ say: 'First pass done.' }), name: 'resume with a message' });
  await suite.daemon.waitForStatus(runId, 'success');
  const page = await newPage(t, suite.browser);
  await openRun(page, suite.daemon, runId);
  await until(async () => (await composer(page).getAttribute('data-mode')) === 'resume', { what: 'the composer in resume mode' });
  const input = page.locator(tid('composer-input'));
  await input.fill(`Now the second pass.\n${mock({ say: 'Second pass done.' })}`);
  await input.press('Control+Enter');
  const run = await suite.daemon.waitForRun(runId, (r) => r.sessions.length === 2 && r.status === 'success', { what: 'a second session that succeeds' });
  assert.match(run.sessions[1].prompt, /Now the second pass\./);
  await waitHeaderStatus(page, 'success');
  await page.locator(tid('message-text'), { hasText: 'Second pass done.' }).first().waitFor();

  // The history: the message sent, then (older) the run's own message.
  assert.equal(await input.inputValue(), '');
  await input.press('ArrowUp');
  assert.match(await input.inputValue(), /^Now the second pass\./);
  await input.press('ArrowUp');
  assert.match(await input.inputValue(), /First pass done/);
  await input.press('ArrowDown');
  await input.press('ArrowDown');
  assert.equal(await input.inputValue(), '');

  // A draft survives a reload.
  await input.fill('half a thought');
  await page.reload();
  await page.locator(tid('composer-input')).waitFor();
  assert.equal(await page.locator(tid('composer-input')).inputValue(), 'half a thought');
});

test('a finished run started over with changed vars runs its new session with them', async (t) => {
  const before = { feature: 'dark mode', count: 3, urgent: true, size: 'large' };
  const runId = await suite.daemon.createRun({ agent: 'mock', assignment: 'feature', vars: before, name: 'vars again' });
  await suite.daemon.waitForStatus(runId, 'success');
  const page = await newPage(t, suite.browser);
  await openRun(page, suite.daemon, runId);
  await until(async () => (await composer(page).getAttribute('data-mode')) === 'resume', { what: 'the composer in resume mode' });

  const section = page.locator(tid('composer-reconfigure'));
  await page.locator(tid('composer-reconfigure-toggle')).click();
  const feature = section.locator('[name="var.feature"]');
  await until(async () => (await feature.count()) === 1 && (await feature.inputValue()) === 'dark mode', { what: `the run's vars in the form${problems(page)}` });
  assert.equal(await feature.isDisabled(), true, 'vars editable on a run that ran without resetting it');

  // A wrong value is refused by the form, and nothing is sent.
  await section.locator(tid('composer-reset-first')).check();
  await section.locator('[name="var.count"]').fill('lots');
  const posts = [];
  const onRequest = (r) => { if (r.method() === 'POST') posts.push(new URL(r.url()).pathname); };
  page.on('request', onRequest);
  await page.locator(tid('composer-send')).click();
  await page.locator(tid('composer-error'), { hasText: 'count must be a number' }).waitFor();
  page.off('request', onRequest);
  assert.deepEqual(posts, []);

  const after = { feature: 'light mode', count: 5, urgent: true, size: 'small' };
  await setControl(feature, after.feature);
  await setControl(section.locator('[name="var.count"]'), after.count);
  await setControl(section.locator('[name="var.size"]'), after.size);
  if (process.env.AGENTRY_SCREENSHOTS_DIR) await page.locator(tid('composer-input')).fill('Once more, lighter.');
  await page.locator(tid('composer-send')).click();

  const run = await suite.daemon.waitForRun(runId, (r) => r.status === 'success' && r.vars.feature === 'light mode' && r.sessions.length === 1,
    { what: 'the run to start over with the new vars and succeed' });
  assert.deepEqual({ feature: run.vars.feature, count: run.vars.count, urgent: run.vars.urgent, size: run.vars.size }, after);
  assert.match(run.sessions[0].prompt, /Build light mode\./, 'the new session was given the new vars');
  const said = (await suite.daemon.timeline(runId)).filter((e) => e.kind === 'message.completed').map((e) => e.payload.text);
  assert.deepEqual(said, [FEATURE_TEXT(after)]);
  const types = (await suite.daemon.audit(runId)).map((e) => e.type);
  const reset = types.lastIndexOf('run.reset');
  const reconfigured = types.lastIndexOf('run.reconfigured');
  assert.ok(reset >= 0 && reconfigured > reset, `reset then reconfigure in the audit: ${types.join(', ')}`);
  await page.locator(tid('message-text'), { hasText: FEATURE_TEXT(after) }).first().waitFor();
});

const SIZES = {
  desktop: { viewport: { width: 1280, height: 800 }, colorScheme: 'light' },
  phone: { viewport: { width: 390, height: 844 }, colorScheme: 'dark', isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
};

for (const [size, options] of Object.entries(SIZES)) {
  test(`the composer at ${size} size: a queued message with a file, the reconfigure section open`, async (t) => {
    const runId = await suite.daemon.createRun({ agent: 'mock', assignment: 'feature', vars: { feature: 'dark mode' }, name: 'Dark mode' });
    await suite.daemon.waitForStatus(runId, 'success');
    const page = await newPage(t, suite.browser, options);
    await page.goto(suite.daemon.url(`/runs/${runId}`));
    await page.locator(tid('composer-input')).waitFor();
    await page.locator(tid('message-text')).first().waitFor();
    await page.locator(tid('composer-input')).fill('Now add a toggle to the settings page, and a test for it.');
    await page.locator(tid('composer-file-input')).setInputFiles({ name: 'settings-mockup.png', mimeType: 'image/png', buffer: Buffer.alloc(48_213, 1) });
    const section = page.locator(tid('composer-reconfigure'));
    await page.locator(tid('composer-reconfigure-toggle')).click();
    // The vars arrive after the section opens and grow the bottom-docked composer upward:
    // a click before then can land where the checkbox no longer is.
    await until(async () => (await section.locator('[name="var.feature"]').count()) === 1, { what: 'the vars in the reconfigure section' });
    await section.locator(tid('composer-reset-first')).check();
    await section.locator('[name="var.size"]').selectOption('large');
    await page.evaluate(() => document.fonts?.ready);
    const file = path.join(screenshotsDir(), `dashboard-composer-${size}.png`);
    await page.screenshot({ path: file, animations: 'disabled', caret: 'hide' });
    assert.ok(fs.statSync(file).size > 5_000, `${file} is suspiciously small`);
    // Nothing was sent to take the picture.
    assert.deepEqual((await suite.daemon.api('GET', `/api/runs/${runId}/attachments?scope=run`)).attachments, []);
  });
}
