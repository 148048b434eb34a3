// What the dashboard remembers and the keys it answers, in Chromium against a real
// daemon: the board's filters survive a reload and a visit to a run (localStorage), a
// fresh browser starts unfiltered; `?` and the top bar's button open the key-binding
// sheet, which lists every binding, and Esc closes it without leaving the page; `?`
// typed into a field is text, not a shortcut.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, sharedDaemonAndBrowser, tid, until } from './harness.mjs';
import { mock, problems, standardConfig } from './fixtures.mjs';

const suite = sharedDaemonAndBrowser(standardConfig());

const rowOf = (runId) => `[data-testid="run-row"][data-run-id="${runId}"]`;
const filterText = `input${tid('filter-text')}`;
const filterStatus = `select${tid('filter-status')}`;

test('the board keeps its filters across a reload and a visit to a run; a fresh browser starts unfiltered', async (t) => {
  const kept = await suite.daemon.createRun({ agent: 'mock', name: 'remembered filter target', message: mock({ say: 'done' }) });
  const other = await suite.daemon.createRun({ agent: 'mock', name: 'another run', message: mock({ say: 'done' }) });
  await suite.daemon.waitForStatus(kept, 'success');
  await suite.daemon.waitForStatus(other, 'success');

  const page = await newPage(t, suite.browser);
  await page.goto(suite.daemon.url('/'));
  await page.locator(rowOf(other)).waitFor();
  await page.locator(filterStatus).selectOption('success');
  await page.locator(filterText).fill('remembered');
  await until(async () => (await page.locator(rowOf(other)).count()) === 0, { what: 'the filter to hide the other run' });

  await page.reload();
  await page.locator(rowOf(kept)).waitFor();
  assert.equal(await page.locator(filterText).inputValue(), 'remembered');
  assert.equal(await page.locator(filterStatus).inputValue(), 'success');
  assert.equal(await page.locator(rowOf(other)).count(), 0, 'the restored filter applies');

  // Into a run and back with the navigation: the same filters.
  await page.locator(rowOf(kept)).click();
  await page.waitForURL(`**/runs/${kept}`);
  await page.locator(tid('nav-board')).click();
  await page.locator(rowOf(kept)).waitFor();
  assert.equal(await page.locator(filterText).inputValue(), 'remembered');

  // Another browser (its own storage) starts with none.
  const fresh = await newPage(t, suite.browser);
  await fresh.goto(suite.daemon.url('/'));
  await fresh.locator(rowOf(other)).waitFor();
  assert.equal(await fresh.locator(filterText).inputValue(), '');
  assert.deepEqual(page.problems, [], problems(page));
});

test('? opens the key-binding sheet, Esc closes it and stays on the page; ? in a field is text', async (t) => {
  const page = await newPage(t, suite.browser);
  await page.goto(suite.daemon.url('/definitions'));
  await page.locator(tid('nav-definitions')).waitFor();

  await page.keyboard.press('?');
  const sheet = page.locator(tid('keys-help'));
  await sheet.waitFor();
  const bindings = await sheet.locator(tid('key-binding')).allTextContents();
  assert.equal(bindings.length, 15, bindings.join(' | '));
  for (const what of ['Filter runs by text', 'Select the next run', 'Open the selected run', 'back to the board', 'Jump to the next file'])
    assert.ok(bindings.some((b) => b.includes(what)), `the sheet lists "${what}": ${bindings.join(' | ')}`);

  await page.keyboard.press('Escape');
  await sheet.waitFor({ state: 'detached' });
  assert.match(page.url(), /\/definitions$/, 'Esc closed the sheet and did not go back to the board');

  await page.locator(tid('keys-help-toggle')).click();
  await sheet.waitFor();
  await page.locator(tid('keys-help-close')).click();
  await sheet.waitFor({ state: 'detached' });

  await page.locator(tid('nav-board')).click();
  await page.locator(filterText).click();
  await page.keyboard.type('a?b');
  assert.equal(await page.locator(filterText).inputValue(), 'a?b');
  assert.equal(await sheet.count(), 0, 'typing ? into a field opens nothing');
  assert.deepEqual(page.problems, [], problems(page));
});
