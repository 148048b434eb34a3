// The board as a place to act from, in Chromium against a real daemon: the columns view
// puts each run in the column of its status as the API reports it; sort and a filter
// change what is shown and are kept across a reload; picked runs are archived in bulk;
// a card's menu offers what the run's capabilities allow, and its abort and pin reach
// the API and come back through the summary stream; the keys pick runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { makeGitRepo, newPage, sharedDaemonAndBrowser, tid, until } from './harness.mjs';
import { mock, problems, standardConfig } from './fixtures.mjs';

const suite = sharedDaemonAndBrowser(standardConfig());

// The column each status belongs in (web/src/lib/boardColumns.ts).
const COLUMN = { initialized: 'ready', ready: 'ready', running: 'running', blocked: 'needs-you', exhausted: 'needs-you', success: 'done', error: 'failed', aborted: 'failed' };

const card = (runId) => tid('run-card', `[data-run-id="${runId}"]`);
const columnCards = (page, column) =>
  page.locator(`${tid('board-column')}[data-column="${column}"] ${tid('run-card')}`).evaluateAll((els) => els.map((e) => e.getAttribute('data-run-id')));

let runs;
let repo;
let seeded;

// The runs, made once by the first test (the shared daemon starts in the suite's own
// before hook, which runs after a file's own).
const seed = () => (seeded ??= (async () => {
  const { daemon } = suite;
  repo = makeGitRepo(path.join(daemon.tmp.path, 'elsewhere'), { 'README.md': '# elsewhere\n' });
  runs = {};
  runs.ready = await daemon.createRun({ agent: 'mock', name: 'Not started yet', start: false, message: mock({ say: 'later' }) });
  runs.hang = await daemon.createRun({ agent: 'mock', name: 'Long job', message: mock({ hang: true }) });
  runs.apple = await daemon.createRun({ agent: 'mock', name: 'Apple done', message: mock({ say: 'done' }) });
  runs.zebra = await daemon.createRun({ agent: 'mock', name: 'Zebra done', cwd: repo, message: mock({ say: 'done' }) });
  runs.failed = await daemon.createRun({ agent: 'mock', name: 'Broken build', message: mock({ fail: 'the build broke' }) });
  // Tasks never marked done: the attempts run out and the run ends exhausted.
  runs.exhausted = await daemon.createRun({ agent: 'mock', assignment: 'tasked', name: 'Ran out of attempts' });
  await Promise.all([
    daemon.waitForRun(runs.hang, (r) => r.status === 'running' && r.totalAttemptCount > 0, { what: 'running' }),
    daemon.waitForStatus(runs.apple, 'success'),
    daemon.waitForStatus(runs.zebra, 'success'),
    daemon.waitForStatus(runs.failed, 'error'),
    daemon.waitForStatus(runs.exhausted, 'exhausted', { timeoutMs: 60_000 }),
  ]);
})());

test('the columns view shows each run in its status column; sort and a filter apply and are kept', async (t) => {
  await seed();
  const { daemon } = suite;
  const page = await newPage(t, suite.browser);
  await page.goto(daemon.url('/'));
  await page.locator(tid('board-view-columns')).click();
  await page.locator(card(runs.ready)).waitFor();

  // Every run sits in the column of the status the API gives it.
  const listed = (await daemon.api('GET', '/api/runs?limit=500')).runs;
  assert.equal(listed.length, Object.keys(runs).length);
  for (const r of listed) {
    await until(async () => (await columnCards(page, COLUMN[r.status])).includes(r.runId), { what: `${r.runId} (${r.status}) in column ${COLUMN[r.status]}` });
  }
  assert.deepEqual(await columnCards(page, 'needs-you'), [runs.exhausted]);
  assert.deepEqual(await columnCards(page, 'failed'), [runs.failed]);

  // Newest first, then by name.
  assert.deepEqual(await columnCards(page, 'done'), [runs.zebra, runs.apple]);
  await page.locator(tid('board-sort')).selectOption('name');
  await until(async () => (await columnCards(page, 'done'))[0] === runs.apple, { what: 'the name sort' });

  // The repository filter: only the run made in the other repository.
  await page.locator(tid('filter-repo')).selectOption(repo);
  await until(async () => (await page.locator(tid('run-card')).count()) === 1, { what: 'the repository filter' });
  assert.deepEqual(await columnCards(page, 'done'), [runs.zebra]);

  // A reload keeps the view, the sort and the filter.
  await page.reload();
  await page.locator(card(runs.zebra)).waitFor();
  assert.equal(await page.locator(tid('board')).getAttribute('data-view'), 'columns');
  assert.equal(await page.locator(tid('board-sort')).inputValue(), 'name');
  assert.equal(await page.locator(tid('filter-repo')).inputValue(), repo);
  assert.equal(await page.locator(tid('run-card')).count(), 1);
  assert.deepEqual(page.problems, [], problems(page));
});

test('picked runs are archived in bulk; a card menu offers what the capabilities allow, and abort and pin reach the API', async (t) => {
  await seed();
  const { daemon } = suite;
  const page = await newPage(t, suite.browser);
  await page.goto(daemon.url('/'));
  await page.locator(tid('board-view-columns')).click();
  await page.locator(card(runs.apple)).waitFor();

  // Pick the two finished runs: the first box, then shift-click the second (a range).
  await page.locator(`${card(runs.zebra)} ${tid('run-pick')}`).click();
  await page.locator(`${card(runs.apple)} ${tid('run-pick')}`).click({ modifiers: ['Shift'] });
  assert.equal(await page.locator(tid('bulk-count')).textContent(), '2 selected');
  assert.equal(await page.locator(tid('bulk-abort')).count(), 0, 'no abort for finished runs');
  await page.locator(tid('bulk-archive')).click();
  await until(async () => (await daemon.run(runs.apple)).archived && (await daemon.run(runs.zebra)).archived, { what: 'both runs archived' });
  await page.locator(card(runs.apple)).waitFor({ state: 'detached' });
  await page.locator(card(runs.zebra)).waitFor({ state: 'detached' });
  assert.equal(await page.locator(tid('bulk-bar')).count(), 0, 'the selection is cleared after the bulk action');

  // The running run's menu: abort (running) and pin, nothing its capabilities refuse.
  const menu = async (runId) => {
    await page.locator(`${card(runId)} ${tid('card-menu')}`).click();
    await page.locator(tid('card-menu-popup')).waitFor();
    return page.locator(`${tid('card-menu-popup')} button`).evaluateAll((els) => els.map((e) => e.getAttribute('data-testid')));
  };
  assert.deepEqual(await menu(runs.hang), ['card-action-abort', 'card-action-pin']);
  await page.locator(tid('card-action-abort')).click();
  await daemon.waitForStatus(runs.hang, 'aborted');
  await until(async () => (await columnCards(page, 'failed')).includes(runs.hang), { what: 'the aborted run in the failed column' });

  // The run that never ran: start, archive and pin; pin it.
  assert.deepEqual(await menu(runs.ready), ['card-action-start', 'card-action-archive', 'card-action-pin']);
  await page.locator(tid('card-action-pin')).click();
  await until(async () => (await daemon.run(runs.ready)).pinned, { what: 'the run pinned' });
  await page.locator(`${card(runs.ready)} .pin`).waitFor();
  assert.deepEqual(await menu(runs.ready), ['card-action-start', 'card-action-archive', 'card-action-unpin']);
  await page.keyboard.press('Escape');
  await page.locator(tid('card-menu-popup')).waitFor({ state: 'detached' });

  // The list view has the same menu and pick boxes.
  await page.locator(tid('board-view-list')).click();
  const row = page.locator(tid('run-row', `[data-run-id="${runs.failed}"]`));
  await row.waitFor();
  await page.locator(`.board-item:has(${tid('run-row', `[data-run-id="${runs.failed}"]`)}) ${tid('run-pick')}`).click();
  assert.equal(await page.locator(tid('bulk-count')).textContent(), '1 selected');
  assert.deepEqual(await page.locator(`${tid('bulk-bar')} button`).evaluateAll((els) => els.map((e) => e.getAttribute('data-testid'))),
    ['bulk-all', 'bulk-resume', 'bulk-archive', 'bulk-pin', 'bulk-clear']);
  await page.keyboard.press('Escape');
  await page.locator(tid('bulk-bar')).waitFor({ state: 'detached' });

  // The keys: j selects the first run, x picks it, shift+j picks the next one too.
  await page.locator(tid('board-count')).click(); // the focus off the pick box, on the page
  await page.keyboard.press('j');
  await page.keyboard.press('x');
  assert.equal(await page.locator(tid('bulk-count')).textContent(), '1 selected');
  await page.keyboard.press('Shift+J');
  assert.equal(await page.locator(tid('bulk-count')).textContent(), '2 selected');
  assert.equal(await page.locator(`.board-item.picked ${tid('run-row')}.selected`).count(), 1, 'the selected run is one of the picked');
  await page.keyboard.press('Escape');
  await page.locator(tid('bulk-bar')).waitFor({ state: 'detached' });
  assert.deepEqual(page.problems, [], problems(page));
});
