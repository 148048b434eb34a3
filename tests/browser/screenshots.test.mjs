// Screenshots of the dashboard (board as list and columns, run view, new-run form, diff tab, browser tab) at desktop
// (1280x800, light) and phone (390x844, dark) size, written to $AGENTRY_SCREENSHOTS_DIR
// (docs/images/ when refreshing the committed ones) or a temp dir. Named
// dashboard-<view>-<desktop|phone>.png. The diff tab is also checked against the API.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Daemon, launchBrowser, makeGitRepo, newPage, screenshotsDir, tid, until } from './harness.mjs';
import { mock, problems, runRow, standardConfig } from './fixtures.mjs';

const SIZES = {
  desktop: { viewport: { width: 1280, height: 800 }, colorScheme: 'light' },
  phone: { viewport: { width: 390, height: 844 }, colorScheme: 'dark', isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
};

let daemon;
let browser;
let runs;
const outDir = screenshotsDir();

// A real headless-Chromium run (the browser backend, script mode) for the browser tab.
const PAGE = 'data:text/html,<title>Pocket calculator</title><body style="font:22px sans-serif;margin:48px">' +
  '<h1>Pocket calculator</h1><input id=a value=7> + <input id=b value=5> <button id=eq ' +
  'onclick="out.textContent=\'= \'+(+a.value + +b.value)">=</button><p id=out></p></body>';
const browserAgent = {
  'agents/surfer/agent.md': [
    '---', 'schemaVersion: 1', 'description: "A scripted browser run"', 'backend: browser', 'backendConfig:',
    `  browser: ${JSON.stringify({ steps: [
      { action: 'navigate', url: PAGE }, { action: 'click', selector: '#eq' }, { action: 'waitFor', text: '= 12' },
      { action: 'finish', summary: 'The calculator says 7 + 5 = 12.' }] })}`,
    '---', 'You drive a browser.', ''].join('\n'),
};

before(async () => {
  [daemon, browser] = await Promise.all([Daemon.start({ config: { ...standardConfig(), ...browserAgent } }), launchBrowser()]);
  const repo = makeGitRepo(path.join(daemon.tmp.path, 'repo'), {
    'README.md': '# Pocket calculator\n\nAdds numbers.\n',
    'src/calc.js': 'export function add(a, b) {\n  return a + b;\n}\n',
    'old-notes.txt': 'to be removed\n',
  });
  const say = (text, extra = {}) => mock({ reasoning: 'Reading the code first.' },
    { tool: { command: 'ls src', output: 'calc.js\n', exitCode: 0 } }, { say: text, deltas: 4, ...extra });
  runs = {};
  runs.diff = await daemon.createRun({
    agent: 'mock', cwd: repo, name: 'Add subtraction',
    message: `Add subtract() to the calculator.\n${say('Added subtract() and removed the old notes.')}`,
  });
  runs.done = await daemon.createRun({
    agent: 'mock', name: 'Dark mode',
    message: `Implement dark mode.\n${say('Dark mode is in: the toggle follows the system setting and remembers a choice.')}`,
  });
  runs.hang = await daemon.createRun({ agent: 'mock', name: 'Long refactor', message: mock({ say: 'Working on it.' }, { hang: true }) });
  runs.ready = await daemon.createRun({ agent: 'mock', assignment: 'tasked', name: 'Release checklist', start: false });
  runs.aborted = await daemon.createRun({ agent: 'mock', name: 'Flaky test hunt', message: mock({ hang: true }) });
  runs.browser = await daemon.createRun({ agent: 'surfer', name: 'Check the calculator page', message: 'go' });
  await daemon.waitForStatus(runs.aborted, 'running');
  await daemon.api('POST', `/api/runs/${runs.aborted}/abort`, { reason: 'superseded' });
  await Promise.all([
    daemon.waitForStatus(runs.diff, 'success'),
    daemon.waitForStatus(runs.done, 'success'),
    daemon.waitForStatus(runs.aborted, 'aborted'),
    daemon.waitForStatus(runs.browser, 'success'),
    daemon.waitForRun(runs.hang, (r) => r.status === 'running' && r.totalAttemptCount > 0, { what: 'running' }),
  ]);
  // The run's changes: one file edited, one added, one deleted.
  fs.writeFileSync(path.join(repo, 'src/calc.js'),
    'export function add(a, b) {\n  return a + b;\n}\n\nexport function subtract(a, b) {\n  return a - b;\n}\n');
  fs.writeFileSync(path.join(repo, 'CHANGELOG.md'), '# Changes\n\n- subtract()\n');
  fs.rmSync(path.join(repo, 'old-notes.txt'));
  console.log(`screenshots go to ${outDir}`);
});

after(async () => {
  await browser?.close();
  await daemon?.stop();
});

async function shoot(page, view, size) {
  await page.evaluate(() => document.fonts?.ready);
  const file = path.join(outDir, `dashboard-${view}-${size}.png`);
  await page.screenshot({ path: file, animations: 'disabled', caret: 'hide' });
  assert.ok(fs.statSync(file).size > 5_000, `${file} is suspiciously small`);
  return file;
}

for (const [size, options] of Object.entries(SIZES)) {
  test(`screenshots at ${size} size: board, run view, new-run form, diff, browser; the files tab`, async (t) => {
    const page = await newPage(t, browser, options);

    await page.goto(daemon.url('/'));
    await page.locator(tid('board')).waitFor();
    for (const id of Object.values(runs)) await page.locator(runRow(id)).waitFor();
    await until(async () => ((await page.locator(tid('connection-state')).textContent()) ?? '').trim() === 'live',
      { what: 'connection-state live' });
    await shoot(page, 'board', size);

    // The columns view, one run picked (the bulk bar shows what can be done to it).
    await page.locator(tid('board-view-columns')).click();
    for (const id of Object.values(runs)) await page.locator(tid('run-card', `[data-run-id="${id}"]`)).waitFor({ state: 'attached' });
    await page.locator(`${tid('run-card', `[data-run-id="${runs.ready}"]`)} ${tid('run-pick')}`).click();
    await page.locator(tid('bulk-bar')).waitFor();
    await page.locator('.filters').evaluate((el) => { el.scrollLeft = 0; }); // the phone's filter row, back to its start
    await shoot(page, 'board-columns', size);
    await page.locator(tid('bulk-clear')).click();
    await page.locator(tid('board-view-list')).click();

    await page.goto(daemon.url(`/runs/${runs.done}`));
    await page.locator(tid('run-view', `[data-run-id="${runs.done}"]`)).waitFor();
    await page.locator(tid('message-text'), { hasText: 'Dark mode is in' }).first().waitFor();
    await shoot(page, 'run', size);

    await page.goto(daemon.url('/'));
    await page.locator(tid('new-run')).click();
    const form = page.locator(`form${tid('new-run-form')}`);
    await form.waitFor();
    await form.locator('select[name=agent]').selectOption('mock');
    await form.locator('select[name=assignment]').selectOption('feature');
    await form.locator('[name="var.feature"]').fill('dark mode');
    await shoot(page, 'new-run', size);

    await page.goto(daemon.url(`/runs/${runs.diff}`));
    await page.locator(tid('run-view', `[data-run-id="${runs.diff}"]`)).waitFor();
    await page.locator(tid('tab-diff')).click();
    const files = page.locator(tid('diff-file'));
    await files.first().waitFor({ state: 'visible' }).catch((e) => {
      throw new Error(`no diff-file in the diff tab: ${e.message}${problems(page)}`);
    });
    await until(async () => (await files.count()) === 3, { what: '3 diff files' });
    const shown = (await files.evaluateAll((els) => els.map((el) => el.getAttribute('data-path')))).sort();
    const api = await daemon.api('GET', `/api/runs/${runs.diff}/workspace/diff?mode=run`);
    assert.deepEqual(shown, api.files.map((f) => f.path).sort());
    assert.deepEqual(shown, ['CHANGELOG.md', 'old-notes.txt', 'src/calc.js']);
    await page.locator(tid('diff-patch'), { hasText: 'return a - b;' }).first().waitFor();
    await shoot(page, 'diff', size);

    // The files tab lists the run's cwd and previews a file, as the API reads them.
    await page.locator(tid('tab-files')).click();
    const entries = page.locator(tid('file-entry'));
    await entries.first().waitFor({ state: 'visible' });
    const listed = await entries.evaluateAll((els) => els.map((el) => el.getAttribute('data-path')));
    const apiFiles = await daemon.api('GET', `/api/runs/${runs.diff}/workspace/files`);
    assert.deepEqual(listed, apiFiles.entries.map((e) => e.path));
    await page.locator(tid('file-entry', '[data-path="README.md"]')).locator('a').first().click();
    await page.locator(tid('file-preview'), { hasText: 'Adds numbers.' }).waitFor();

    // The browser tab keeps the run's last frame after it ended: the page as Chromium drew it.
    await page.goto(daemon.url(`/runs/${runs.browser}/browser`));
    const frame = page.locator(tid('browser-frame'));
    await frame.waitFor({ state: 'visible' }).catch((e) => {
      throw new Error(`no browser frame: ${e.message}${problems(page)}`);
    });
    await until(async () => (await frame.evaluate((el) => el.complete && el.naturalWidth)) > 100, { what: 'the frame to decode' });
    await shoot(page, 'browser', size);
  });
}
