// Review in the run view against the real daemon, on a running run whose cwd is a real git
// repository with a `feature` branch: a branch diff between two refs (as the API answers
// it), the side-by-side layout (kept across a reload), search in the diff, lines picked
// and sent as a task and as a queued message (both read back through the API), a
// highlighted file preview, an image preview from the raw route, and attachment previews.
// With AGENTRY_SCREENSHOTS_DIR set it also writes dashboard-review-<diff|file>-<size>.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { Daemon, launchBrowser, makeGitRepo, newPage, screenshotsDir, tid, until } from './harness.mjs';
import { mock, problems, standardConfig } from './fixtures.mjs';

const SIZES = {
  desktop: { viewport: { width: 1280, height: 800 }, colorScheme: 'light' },
  phone: { viewport: { width: 390, height: 844 }, colorScheme: 'dark', isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
};

/// A real PNG (`size` x `size`, a colour gradient), made here so no binary sits in git.
function png(size) {
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const rows = [];
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 3);
    for (let x = 0; x < size; x++) row.set([(x * 255) / size, (y * 255) / size, 160], 1 + x * 3);
    rows.push(row);
  }
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', header), chunk('IDAT', zlib.deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]);
}

const CALC = 'export function add(a, b) {\n  return a+b;\n}\n\nexport function mul(a, b) {\n  return a * b;\n}\n';
const CALC_FEATURE = 'export function add(a, b) {\n  return a + b;\n}\n\nexport function subtract(a, b) {\n  return a - b;\n}\n\nexport function mul(a, b) {\n  return a * b;\n}\n';

let daemon;
let browser;
let runId;
let repo;
before(async () => {
  [daemon, browser] = await Promise.all([Daemon.start({ config: standardConfig() }), launchBrowser()]);
  repo = makeGitRepo(path.join(daemon.tmp.path, 'repo'), { 'README.md': '# Calculator\n', 'src/calc.js': CALC });
  fs.writeFileSync(path.join(repo, 'logo.png'), png(64));
  const git = (...args) => execFileSync('git', args, { cwd: repo, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  git('add', 'logo.png');
  git('commit', '-q', '-m', 'logo');
  git('checkout', '-q', '-b', 'feature');
  fs.writeFileSync(path.join(repo, 'src/calc.js'), CALC_FEATURE);
  fs.writeFileSync(path.join(repo, 'CHANGELOG.md'), '# Changes\n\n- subtract()\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'subtract');
  git('checkout', '-q', 'main');
  // A running run (the mock hangs) on the repository: messages can be queued for it.
  runId = await daemon.createRun({ agent: 'mock', cwd: repo, name: 'Review the calculator', message: mock({ say: 'Looking.' }, { hang: true }) });
  await daemon.waitForRun(runId, (r) => r.status === 'running' && r.totalAttemptCount > 0, { what: 'running' });
});
after(async () => {
  await browser?.close();
  await daemon?.stop();
});

const paths = (locator) => locator.evaluateAll((els) => els.map((e) => e.getAttribute('data-path')));

async function openBranchDiff(page) {
  await page.goto(daemon.url(`/runs/${runId}/diff`));
  await page.locator(tid('diff-mode')).waitFor();
  await page.locator(tid('diff-mode')).selectOption('branch');
  await page.locator(tid('diff-base')).fill('main');
  await page.locator(tid('diff-head')).fill('feature');
  await page.locator(tid('diff-compare')).click();
  await page.locator(tid('diff-file')).first().waitFor().catch((e) => {
    throw new Error(`no diff-file after Compare: ${e.message}${problems(page)}`);
  });
}

test('a branch diff between two refs, side by side (kept), searched', async (t) => {
  const api = await daemon.api('GET', `/api/runs/${runId}/workspace/diff?mode=branch&base=main&head=feature`);
  assert.deepEqual(api.files.map((f) => f.path).sort(), ['CHANGELOG.md', 'src/calc.js']);
  const page = await newPage(t, browser);
  await openBranchDiff(page);
  assert.deepEqual(await paths(page.locator(tid('diff-file'))), api.files.map((f) => f.path));
  for (const f of api.files) {
    const row = page.locator(tid('diff-file', `[data-path="${f.path}"]`));
    assert.match(await row.textContent(), new RegExp(`\\+${f.additions} −${f.deletions}`));
  }

  await page.locator(tid('diff-layout-split')).click();
  const calc = page.locator(tid('diff-file-view', '[data-path="src/calc.js"]'));
  const paired = calc.locator('table.side-by-side tr', { hasText: 'return a+b;' });
  assert.deepEqual((await paired.locator('td').allTextContents()).map((s) => s.trim()), ['2', '-  return a+b;', '2', '+  return a + b;']);
  // The layout is a preference: a reload (and a new comparison) shows it again.
  await page.reload();
  await page.locator(tid('diff-mode')).selectOption('branch');
  // The fields suggest the repository's own branches, as GET .../workspace/refs lists them.
  const refs = await daemon.api('GET', `/api/runs/${runId}/workspace/refs`);
  const branches = refs.branches.map((b) => b.name);
  assert.ok(branches.includes('main') && branches.includes('feature'), JSON.stringify(refs));
  await page.waitForFunction(() => document.querySelectorAll('#diff-refs option[value="feature"]').length === 1);
  const offered = await page.locator('#diff-refs option').evaluateAll((os) => os.map((o) => o.getAttribute('value')));
  for (const name of branches) assert.ok(offered.includes(name), `${name} offered: ${offered}`);
  await page.locator(tid('diff-base')).fill('main');
  await page.locator(tid('diff-head')).fill('feature');
  await page.locator(tid('diff-compare')).click();
  await calc.locator('table.side-by-side').waitFor();
  assert.equal(await page.locator(tid('diff-layout-split')).getAttribute('aria-pressed'), 'true');

  const expected = api.patch.split('\n').filter((l) => /^[+-](?![+-]{2} )/.test(l) || l.startsWith(' ')).filter((l) => l.toLowerCase().includes('subtract')).length;
  assert.equal(expected, 2, 'the fixture has two changed lines naming subtract');
  await page.locator(tid('diff-search')).fill('Subtract');
  assert.equal(await page.locator(tid('diff-search-count')).textContent(), `0/${expected}`);
  assert.equal(await page.locator(`${tid('diff-patch')} mark`).count(), expected);
  await page.locator(tid('diff-search')).press('Enter');
  assert.equal(await page.locator(tid('diff-search-count')).textContent(), `1/${expected}`);
  assert.match(await page.locator('tr.hit-current').textContent(), /subtract/i);
  // The match's file is the current one; the next-file button moves on from it.
  assert.deepEqual(await paths(page.locator(`${tid('diff-file')}.active`)), [api.files[0].path]);
  await page.locator(tid('diff-next-file')).click();
  assert.deepEqual(await paths(page.locator(`${tid('diff-file')}.active`)), [api.files[1].path]);
  assert.deepEqual(page.problems, []);
});

test('picked lines become a task and a queued message, as the API reads them back', async (t) => {
  const page = await newPage(t, browser);
  await openBranchDiff(page);
  await page.locator(tid('diff-layout-unified')).click();
  const calc = page.locator(tid('diff-file-view', '[data-path="src/calc.js"]'));
  // The new-side numbers of lines 5 to 7: the added subtract() (git ends it on the old `}`).
  const newNumber = (n) => calc.locator('tr', { has: page.locator(`td.ln:nth-child(2)`, { hasText: new RegExp(`^${n}$`) }) }).locator('td.ln').nth(1);
  await newNumber(5).click();
  await newNumber(7).click({ modifiers: ['Shift'] });
  assert.equal(await page.locator(tid('review-range')).textContent(), 'src/calc.js:5-7');
  const quote = 'src/calc.js:5-7\n\n```diff\n+export function subtract(a, b) {\n+  return a - b;\n }\n```\n';

  await page.locator(tid('review-create-task')).click();
  await page.locator(tid('review-result')).waitFor();
  const { tasks } = await daemon.api('GET', `/api/runs/${runId}/tasks`);
  const task = tasks.find((x) => x.title === 'Review src/calc.js:5-7');
  assert.ok(task, `no review task among ${JSON.stringify(tasks.map((x) => x.title))}`);
  assert.equal(task.body, quote);
  assert.match(await page.locator(tid('review-result')).textContent(), new RegExp(task.id));

  await page.locator(tid('review-note')).fill('Is subtract tested?');
  await page.locator(tid('review-queue-message')).click();
  await page.locator(tid('review-result'), { hasText: 'Queued' }).waitFor();
  const { messages } = await daemon.api('GET', `/api/runs/${runId}/queued-resume-messages`);
  assert.deepEqual(messages.map((m) => m.text), [`Is subtract tested?\n\n${quote}`]);
  assert.deepEqual(page.problems, []);
});

test('the files tab highlights code and shows an image from the raw route', async (t) => {
  const page = await newPage(t, browser);
  await page.goto(daemon.url(`/runs/${runId}/files`));
  await page.locator(tid('file-entry', '[data-path="src"]')).locator('a').click();
  await page.locator(tid('file-entry', '[data-path="src/calc.js"]')).locator('a').click();
  const code = page.locator(tid('code-view'));
  await code.waitFor();
  assert.equal(await code.getAttribute('data-language'), 'javascript');
  await code.locator('.hljs-keyword').first().waitFor(); // the lazy highlighter arrived
  const file = await daemon.api('GET', `/api/runs/${runId}/workspace/file?path=src/calc.js`);
  assert.equal(await code.locator(tid('code-line-number')).count(), file.content.split('\n').length - 1);
  await code.locator(tid('code-line-number', '[data-line="2"]')).click();
  assert.equal(await page.locator(tid('review-range')).textContent(), 'src/calc.js:2-2');

  await page.locator('.crumbs a', { hasText: 'cwd' }).click();
  await page.locator(tid('file-entry', '[data-path="logo.png"]')).locator('a').click();
  const img = page.locator(tid('image-preview'));
  await img.waitFor();
  await until(async () => (await img.evaluate((el) => el.complete && el.naturalWidth)) === 64, { what: 'the 64 px logo to decode' });
  assert.match(await img.getAttribute('src'), /^blob:/);
  assert.deepEqual(page.problems, []);
});

test('attachments preview inline: an image, text, a PDF as a link', async (t) => {
  const page = await newPage(t, browser);
  await page.goto(daemon.url(`/runs/${runId}/attachments`));
  await page.locator('.attachments').waitFor();
  await page.locator(tid('attachment-upload')).setInputFiles([
    { name: 'shot.png', mimeType: 'image/png', buffer: png(32) },
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('remember the milk\n') },
    { name: 'spec.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n%%EOF\n') },
  ]);
  await until(async () => (await page.locator(tid('attachment')).count()) === 3, { what: 'three attachment rows' });
  const open = (name) => page.locator(tid('attachment'), { hasText: name }).locator(tid('attachment-open')).click();
  await open('shot.png');
  const img = page.locator(`${tid('attachment-preview')} ${tid('image-preview')}`);
  await until(async () => (await img.evaluate((el) => el.complete && el.naturalWidth).catch(() => 0)) === 32, { what: 'the attached image to decode' });
  await open('notes.txt');
  await page.locator(tid('attachment-preview'), { hasText: 'remember the milk' }).waitFor();
  await open('spec.pdf');
  const link = page.locator(tid('attachment-pdf'));
  await link.waitFor();
  assert.match(await link.getAttribute('href'), /^blob:/);
  assert.equal(await link.getAttribute('target'), '_blank');
  assert.deepEqual(page.problems, []);
});

for (const [size, options] of Object.entries(SIZES)) {
  test(`review screenshots at ${size} size: the side-by-side diff and a file preview`, async (t) => {
    const dir = screenshotsDir();
    const page = await newPage(t, browser, options);
    await openBranchDiff(page);
    await page.locator(tid('diff-layout-split')).click();
    await page.locator(tid('diff-search')).fill('subtract');
    await page.locator(tid('diff-search')).press('Enter');
    const calc = page.locator(tid('diff-file-view', '[data-path="src/calc.js"]'));
    await calc.locator('table.side-by-side').waitFor();
    await page.locator('body').click({ position: { x: 1, y: 1 } }).catch(() => {});
    await page.screenshot({ path: path.join(dir, `dashboard-review-diff-${size}.png`), animations: 'disabled', caret: 'hide' });

    await page.goto(daemon.url(`/runs/${runId}/files`));
    await page.locator(tid('file-entry', '[data-path="src"]')).locator('a').click();
    await page.locator(tid('file-entry', '[data-path="src/calc.js"]')).locator('a').click();
    await page.locator(`${tid('code-view')} .hljs-keyword`).first().waitFor();
    await page.locator(tid('code-line-number', '[data-line="5"]')).click();
    await page.locator(tid('code-line-number', '[data-line="7"]')).click({ modifiers: ['Shift'] });
    await page.locator(tid('review-range')).waitFor();
    await page.screenshot({ path: path.join(dir, `dashboard-review-file-${size}.png`), animations: 'disabled', caret: 'hide' });
    for (const view of ['diff', 'file']) assert.ok(fs.statSync(path.join(dir, `dashboard-review-${view}-${size}.png`)).size > 5_000);
    assert.deepEqual(page.problems, []);
  });
}
