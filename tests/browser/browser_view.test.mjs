// The run view's browser tab against a real daemon: the mock backend's live view frames
// show as an image that decodes, a run without a view says why instead of a blank panel,
// and the ask box gets the backend's answer without adding to the run's timeline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, sharedDaemonAndBrowser, tid, until } from './harness.mjs';
import { mock, problems, standardConfig } from './fixtures.mjs';

const suite = sharedDaemonAndBrowser(standardConfig());

test('live frames show in the browser tab and the newest one replaces the last', async (t) => {
  // Frames keep coming until the test aborts the run (100,000 at 10 per second), so a newer
  // frame always follows the one the page first shows, however late the page gets there.
  const runId = await suite.daemon.createRun({
    agent: 'mock',
    message: mock({ frame: { count: 100_000, rateHz: 10 } }, { hang: true }),
  });
  const page = await newPage(t, suite.browser);
  await page.goto(suite.daemon.url(`/runs/${runId}/browser`));
  const img = page.locator(tid('browser-frame'));
  await img.waitFor({ state: 'visible', timeout: 15_000 });
  // The image is a real JPEG the browser decoded, not a broken icon.
  await until(async () => (await img.evaluate((el) => el.complete && el.naturalWidth)) === 8, { what: 'the frame to decode' });
  const first = Number(await img.getAttribute('data-seq'));
  await until(async () => Number(await img.getAttribute('data-seq')) > first, { what: 'a newer frame' });
  assert.match((await page.locator(tid('browser-view')).textContent()) ?? '', /mock:\/\/frame\/\d+/, problems(page));
  await suite.daemon.api('POST', `/api/runs/${runId}/abort`, {});
});

test('a run without a live view explains why, and the ask box answers without a turn', async (t) => {
  const runId = await suite.daemon.createRun({ agent: 'mock', message: mock({ say: 'finished the page' }) });
  await suite.daemon.waitForRun(runId, (r) => r.status === 'success', { what: 'the run to succeed' });
  const before = await suite.daemon.api('GET', `/api/runs/${runId}/timeline`);
  const page = await newPage(t, suite.browser);
  await page.goto(suite.daemon.url(`/runs/${runId}/browser`));
  const note = page.locator(tid('browser-unavailable'));
  await note.waitFor({ state: 'visible' });
  assert.match((await note.textContent()) ?? '', /the run is success/, problems(page));

  await page.locator(tid('ask-question')).fill('What is on the page?');
  await page.locator(tid('ask-submit')).click();
  const answer = page.locator(tid('ask-answer'));
  await answer.waitFor({ state: 'visible' });
  const text = (await answer.textContent()) ?? '';
  assert.match(text, /final=finished the page/, problems(page));
  assert.match(text, /question=What is on the page\?/);
  const after = await suite.daemon.api('GET', `/api/runs/${runId}/timeline`);
  assert.deepEqual(after.events.length, before.events.length, 'the ask added to the timeline');
});
