// Agent messages render as Markdown, safely, against a real daemon: a mock run says a
// message with a heading, a list, fenced TypeScript, a table and links, plus a
// javascript: link and raw <script>/<img onerror> HTML. In Chromium the structure is
// there (the code highlighted once highlight.js has loaded), the safe link opens in a
// new tab with rel, the javascript: link and the HTML stay text (nothing ran), the run's
// note renders too, and the copy buttons put the code and the whole message on the
// clipboard (read back through navigator.clipboard, with the permissions granted).
// A message streaming in is Markdown while it grows, with the caret after it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { newPage, sharedDaemonAndBrowser, tid, until } from './harness.mjs';
import { mock, openRun, problems, standardConfig } from './fixtures.mjs';

const suite = sharedDaemonAndBrowser(standardConfig());

const CODE = 'const answer: number = 42; // the answer\nexport function twice(n: number) {\n  return n * 2;\n}\n';
const MESSAGE = [
  '# Release notes',
  '## What changed',
  '',
  '- first **item**',
  '- second item',
  '',
  '```ts',
  CODE + '```',
  '',
  '| name | value |',
  '|------|------:|',
  '| size | 3 |',
  '',
  'Read [the docs](https://example.com/docs) or [click me](javascript:window.__pwned=1) ~~not this~~.',
  '',
  '<script>window.__pwned=2</script>',
  '',
  'Inline <img src="x" onerror="window.__pwned=3"> html.',
].join('\n');

test('a Markdown message renders its structure, highlighted code and safe links, and nothing from its HTML', async (t) => {
  const page = await newPage(t, suite.browser, { permissions: ['clipboard-read', 'clipboard-write'] });
  const runId = await suite.daemon.createRun({ agent: 'mock', name: 'markdown', message: mock({ say: MESSAGE, deltas: 8, rateHz: 20 }) });
  await suite.daemon.waitForStatus(runId, 'success');
  await suite.daemon.api('POST', `/api/runs/${runId}/note`, { note: 'see **this** and [that](https://example.com/note)' });
  await openRun(page, suite.daemon, runId);

  const msg = page.locator(`${tid('timeline')} ${tid('message-text')}`, { hasText: 'Release notes' }).last();
  await msg.waitFor();
  // The highlighter is imported when the first code block appears: wait for its spans.
  await msg.locator('pre code .hljs-keyword').first().waitFor();
  const shape = await msg.evaluate((el) => ({
    h1: [...el.querySelectorAll('h1')].map((e) => e.textContent),
    h2: [...el.querySelectorAll('h2')].map((e) => e.textContent),
    li: [...el.querySelectorAll('li')].map((e) => e.textContent),
    codeClass: el.querySelector('pre code')?.className,
    code: el.querySelector('pre code')?.textContent,
    keywords: [...el.querySelectorAll('pre code .hljs-keyword')].map((e) => e.textContent),
    cells: [...el.querySelectorAll('table td')].map((e) => e.textContent),
    headers: [...el.querySelectorAll('table th')].map((e) => e.textContent),
    struck: el.querySelector('s')?.textContent,
    links: [...el.querySelectorAll('a')].map((a) => ({ text: a.textContent, href: a.getAttribute('href'), target: a.target, rel: a.rel })),
    scripts: el.querySelectorAll('script').length,
    images: el.querySelectorAll('img').length,
    text: el.textContent,
  }));
  assert.deepEqual(shape.h1, ['Release notes'], problems(page));
  assert.deepEqual(shape.h2, ['What changed']);
  assert.deepEqual(shape.li, ['first item', 'second item']);
  assert.equal(shape.codeClass, 'language-ts');
  assert.equal(shape.code, CODE, 'the code block holds the code verbatim');
  assert.ok(shape.keywords.includes('const') && shape.keywords.includes('return'), `keywords highlighted: ${shape.keywords}`);
  assert.deepEqual(shape.headers, ['name', 'value']);
  assert.deepEqual(shape.cells, ['size', '3']);
  assert.equal(shape.struck, 'not this');
  assert.deepEqual(shape.links, [{ text: 'the docs', href: 'https://example.com/docs', target: '_blank', rel: 'noopener noreferrer nofollow' }],
    'only the safe link is a link');
  assert.match(shape.text, /\[click me\]\(javascript:window\.__pwned=1\)/, 'the javascript: link is shown as text');
  assert.equal(shape.scripts, 0);
  assert.equal(shape.images, 0);
  assert.match(shape.text, /<script>window\.__pwned=2<\/script>/, 'raw HTML is shown as text');
  assert.match(shape.text, /<img src="x" onerror="window\.__pwned=3">/);
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'nothing in the message ran');

  // The run's note is Markdown as well.
  const note = page.locator('.rh-note');
  assert.equal(await note.locator('strong').textContent(), 'this');
  assert.equal(await note.locator('a').getAttribute('href'), 'https://example.com/note');
  assert.equal(await note.locator('a').getAttribute('rel'), 'noopener noreferrer nofollow');

  // The copy buttons: the code block's raw code, then the whole message's Markdown.
  const clipboard = () => page.evaluate(() => navigator.clipboard.readText());
  await msg.locator(tid('copy-code')).click();
  await until(async () => (await clipboard()) === CODE, { what: `the code on the clipboard (it holds ${JSON.stringify(await clipboard())})` });
  assert.equal(await msg.locator(tid('copy-code')).getAttribute('data-copied'), 'yes');
  const item = page.locator(tid('timeline-item'), { has: page.locator(tid('message-text'), { hasText: 'Release notes' }) }).last();
  await item.locator(tid('copy-message')).click();
  await until(async () => (await clipboard()) === MESSAGE, { what: 'the message on the clipboard' });
  assert.deepEqual(page.problems, []);
});

test('a message streaming in is rendered as Markdown while it grows, with the caret', async (t) => {
  const page = await newPage(t, suite.browser);
  const items = Array.from({ length: 8 }, (_, i) => `- step ${i + 1} of the plan`);
  const text = ['## Plan', '', ...items].join('\n');
  // The agent speaks once the page shows the run (a gate file in its cwd): however slow
  // the machine is to open the page, the 4 s of streaming happen while it watches.
  const gate = path.join(suite.daemon.work, 'streaming-markdown-go');
  const wait = `i=0; while [ ! -f ${gate} ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done`;
  const runId = await suite.daemon.createRun({ agent: 'mock', name: 'streaming markdown',
    message: mock({ exec: ['sh', '-c', wait] }, { say: text, deltas: 24, rateHz: 6 }) });
  await openRun(page, suite.daemon, runId);
  fs.writeFileSync(gate, 'go');
  const msg = page.locator(tid('message-text'), { hasText: 'Plan' }).last();
  // While the run is still running: a heading and some, not all, list items, marked streaming.
  let seen = null;
  await until(async () => {
    seen = (await msg.count()) ? await msg.evaluate((el) => ({ h2: el.querySelector('h2')?.textContent, li: el.querySelectorAll('li').length, streaming: el.classList.contains('streaming'),
      // The caret is the ::after (CSS) of the list's last item, drawn only while streaming.
      caret: getComputedStyle(el.querySelector(':scope > ul:last-child > li:last-child') ?? el, '::after').content })) : null;
    return seen !== null && seen.h2 === 'Plan' && seen.li >= 1 && seen.li < items.length && seen.streaming && seen.caret === '""';
  }, { what: `a partly streamed list (last seen ${JSON.stringify(seen)})${problems(page)}` });
  assert.equal((await suite.daemon.run(runId)).status, 'running', 'the list was seen partly while the run still ran');
  await suite.daemon.waitForStatus(runId, 'success');
  await until(async () => (await msg.locator('li').count()) === items.length && !(await msg.evaluate((el) => el.classList.contains('streaming'))),
    { what: 'the whole list, no longer streaming' });
  assert.deepEqual(await msg.locator('li').allTextContents(), items.map((l) => l.slice(2)));
  assert.equal(await msg.evaluate((el) => getComputedStyle(el.querySelector('li:last-child'), '::after').content), 'none', 'no caret once done');
  assert.deepEqual(page.problems, []);
});
