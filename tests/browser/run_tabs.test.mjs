// The run view's loading tabs against the API, on a run that has not started in a git
// repository: the diff tab falls back to the working tree (the run has no baseline yet)
// and says so; the files tab lists, opens a directory, searches paths and comes back
// from the search; the attachments tab uploads, lists and deletes. Each is compared with
// the daemon's own answer.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Daemon, launchBrowser, makeGitRepo, newPage, tid, until } from './harness.mjs';
import { openRun, problems, standardConfig } from './fixtures.mjs';

let browser;
let daemon;
let runId;
let repo;
before(async () => {
  [daemon, browser] = await Promise.all([Daemon.start({ config: standardConfig() }), launchBrowser()]);
  repo = makeGitRepo(path.join(daemon.tmp.path, 'repo'), {
    'README.md': '# Tabs\n',
    'src/calc.js': 'export const add = (a, b) => a + b;\n',
    'src/util/strings.js': 'export const up = (s) => s.toUpperCase();\n',
    'docs/guide.md': '# Guide\n\nRead me.\n',
  });
  // Changed after the commit: what the working tree shows against HEAD.
  fs.writeFileSync(path.join(repo, 'README.md'), '# Tabs\n\nNow with a line more.\n');
  runId = await daemon.createRun({ agent: 'mock', cwd: repo, name: 'Not started', start: false, message: 'later' });
});
after(async () => {
  await browser?.close();
  await daemon?.stop();
});

const names = (locator, attr) => locator.evaluateAll((els, a) => els.map((e) => e.getAttribute(a)), attr);

test('the diff tab of a run without a baseline shows the working tree and says why', async (t) => {
  const refused = await fetch(daemon.url(`/api/runs/${runId}/workspace/diff?mode=run`), { headers: { Accept: 'application/json' } });
  assert.equal(refused.status, 404);
  assert.equal((await refused.json()).error.details.reason, 'no_baseline');
  const tree = await daemon.api('GET', `/api/runs/${runId}/workspace/diff?mode=working-tree`);
  assert.deepEqual(tree.files.map((f) => f.path), ['README.md']);

  const page = await newPage(t, browser);
  await openRun(page, daemon, runId);
  await page.locator(tid('tab-diff')).click();
  await page.locator(tid('diff-file')).first().waitFor().catch((e) => {
    throw new Error(`no diff-file in the diff tab: ${e.message}${problems(page)}`);
  });
  assert.equal(await page.locator(tid('diff-mode')).inputValue(), 'working-tree');
  assert.match(await page.locator('.diff').textContent(), /No run baseline/);
  assert.deepEqual(await names(page.locator(tid('diff-file')), 'data-path'), ['README.md']);
  await page.locator(tid('diff-patch'), { hasText: 'Now with a line more.' }).waitFor();
  assert.equal(await page.locator('.diff .error').count(), 0, 'the refused run diff shows as an error');
  // The 404 of mode=run (and the console's line about it) is the fallback's cause, not a
  // problem of the page.
  assert.deepEqual(page.problems.filter((p) => !p.includes('/workspace/diff?mode=run') && !p.includes('status of 404')), []);
});

test('the files tab lists, opens a directory, searches and comes back from the search', async (t) => {
  const page = await newPage(t, browser);
  await openRun(page, daemon, runId);
  await page.locator(tid('tab-files')).click();
  const entries = page.locator(tid('file-entry'));
  await entries.first().waitFor();
  const top = await daemon.api('GET', `/api/runs/${runId}/workspace/files`);
  await until(async () => (await entries.count()) === top.entries.length, { what: 'the top listing' });
  assert.deepEqual((await names(entries, 'data-path')).sort(), top.entries.map((e) => e.path).sort());

  await page.locator(tid('file-entry', '[data-path="src"]')).locator('a').click();
  const src = await daemon.api('GET', `/api/runs/${runId}/workspace/files?path=src`);
  await until(async () => JSON.stringify((await names(entries, 'data-path')).sort()) === JSON.stringify(src.entries.map((e) => e.path).sort()), {
    what: 'the listing of src',
  });

  await page.locator(tid('file-search')).fill('guide');
  const found = await daemon.api('GET', `/api/runs/${runId}/workspace/search?q=guide&limit=200`);
  assert.deepEqual(found.results.map((r) => r.path), ['docs/guide.md']);
  await page.locator(tid('file-entry', '[data-path="docs/guide.md"]')).waitFor();
  assert.deepEqual(await names(entries, 'data-path'), ['docs/guide.md']);
  await page.locator(tid('file-entry', '[data-path="docs/guide.md"]')).locator('a').click();
  await page.locator(tid('file-preview'), { hasText: 'Read me.' }).waitFor();

  await page.locator(tid('file-search')).fill('');
  await page.locator(tid('file-entry', '[data-path="src/calc.js"]')).waitFor();
  assert.deepEqual((await names(entries, 'data-path')).sort(), src.entries.map((e) => e.path).sort());
  assert.equal(await page.locator('.files .error').count(), 0);
  assert.deepEqual(page.problems, []);
});

test('the attachments tab uploads, lists and deletes as the API does', async (t) => {
  const page = await newPage(t, browser);
  await openRun(page, daemon, runId);
  await page.locator(tid('tab-attachments')).click();
  await page.locator('.attachments').waitFor();
  assert.equal(await page.locator(tid('attachment')).count(), 0);

  await page.locator(tid('attachment-upload')).setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('remember the milk\n') });
  const row = page.locator(tid('attachment'));
  await row.first().waitFor().catch((e) => {
    throw new Error(`no attachment row after the upload: ${e.message}${problems(page)}`);
  });
  const { attachments } = await daemon.api('GET', `/api/runs/${runId}/attachments?scope=group`);
  assert.equal(attachments.length, 1);
  assert.equal(attachments[0].name, 'notes.txt');
  assert.equal(await row.getAttribute('data-attachment-id'), attachments[0].attachmentId);
  assert.match(await row.textContent(), /notes\.txt.*this run/);

  await row.locator(tid('attachment-delete')).click();
  await until(async () => (await page.locator(tid('attachment')).count()) === 0, { what: 'the row to go' });
  assert.deepEqual((await daemon.api('GET', `/api/runs/${runId}/attachments?scope=group`)).attachments, []);
  assert.deepEqual(page.problems, []);
});
