// Usage and cost in the dashboard, against a real daemon: the mock backend reports usage,
// prices.yaml prices it, and the board's row and the run's header show tokens and cost;
// a model without a price shows "cost ?" with the warning as the tooltip, never a number;
// a run that used nothing shows no pill. What the page shows is compared with RunDetail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, sharedDaemonAndBrowser, tid } from './harness.mjs';
import { mock, problems, standardConfig } from './fixtures.mjs';

const suite = sharedDaemonAndBrowser({
  ...standardConfig(),
  'prices.yaml': 'models:\n  priced-model:\n    input: 2\n    cachedInput: 1\n    output: 10\n',
});

const row = (runId) => `[data-testid="run-row"][data-run-id="${runId}"]`;
const text = async (locator) => ((await locator.textContent()) ?? '').trim();

async function finishedRun(name, ...steps) {
  const runId = await suite.daemon.createRun({ agent: 'mock', name, message: mock(...steps, { say: 'done' }) });
  await suite.daemon.waitForStatus(runId, 'success');
  return { runId, usage: (await suite.daemon.api('GET', `/api/runs/${runId}`)).run.usage };
}

test('the board and the run header show tokens and cost; an unpriced model shows "cost ?" and why', async (t) => {
  const priced = await finishedRun('priced',
    { usage: { inputTokens: 1200, cachedInputTokens: 300, outputTokens: 500, model: 'priced-model' } });
  const unpriced = await finishedRun('unpriced',
    { usage: { inputTokens: 40, outputTokens: 2, model: 'priced-model' } },
    { usage: { inputTokens: 7, outputTokens: 3, model: 'mystery-model' } });
  const idle = await finishedRun('idle');

  // What the API says, so the page is compared with it and not with a number written here.
  assert.equal(priced.usage.costUsd, (1200 * 2 + 300 * 1 + 500 * 10) / 1e6);
  assert.equal(unpriced.usage.costUsd, null);
  assert.match(unpriced.usage.warnings[0], /mystery-model/);

  const page = await newPage(t, suite.browser);
  await page.goto(suite.daemon.url('/'));
  await page.locator(row(idle.runId)).waitFor();
  assert.equal(await text(page.locator(row(priced.runId)).locator(tid('run-usage'))), '2.0k tok · $0.0077', problems(page));
  const unpricedPill = page.locator(row(unpriced.runId)).locator(tid('run-usage'));
  assert.equal(await text(unpricedPill), '52 tok · cost ?');
  assert.match(await unpricedPill.getAttribute('title'), /mystery-model/);
  assert.equal(await page.locator(row(idle.runId)).locator(tid('run-usage')).count(), 0, 'a run without usage has no pill');

  // The run's own page says the same in its header.
  await page.locator(row(priced.runId)).click();
  await page.waitForURL(`**/runs/${priced.runId}`);
  assert.equal(await text(page.locator(tid('run-usage'))), '· 2.0k tok · $0.0077');
  assert.deepEqual(page.problems, []);
});
