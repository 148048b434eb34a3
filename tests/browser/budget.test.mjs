// The first screen of a run with 100,000 durable timeline events: from navigation to the
// first timeline items being visible, in a fresh page (the median of three), must take
// under a second, and the timeline must be virtualised (its DOM far smaller than the
// history).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newPage, sharedDaemonAndBrowser, tid } from './harness.mjs';
import { mock, problems, standardConfig } from './fixtures.mjs';

const EVENTS = 100_000;
const BUDGET_MS = 1000;
const MAX_TIMELINE_NODES = 5000;
const TRIES = 3;

const suite = sharedDaemonAndBrowser(standardConfig());

test(`a ${EVENTS}-event timeline shows its first items within ${BUDGET_MS} ms`, async (t) => {
  const started = Date.now();
  const runId = await suite.daemon.createRun({
    agent: 'mock', name: 'a long history',
    message: mock({ events: EVENTS, kind: 'notice', ephemeral: false }),
  });
  await suite.daemon.waitForStatus(runId, 'success', { timeoutMs: 180_000 });
  // The history holds every event: cursors run past EVENTS (the attempt's own events too).
  const tail = await suite.daemon.api('GET', `/api/runs/${runId}/timeline?limit=5000&after=${EVENTS - 10}`);
  const notices = tail.events.filter((e) => e.kind === 'notice' && e.payload.index !== undefined).map((e) => e.payload.index);
  assert.ok(notices.includes(EVENTS), `the last notice (index ${EVENTS}) is not in the history`);
  console.log(`the run wrote ${EVENTS} events in ${Date.now() - started} ms; the history ends at cursor ${tail.lastCursor}`);

  // Three fresh pages (a new browser context each): the median is the figure, so one
  // hiccup of a busy machine does not decide; every try is printed.
  const tries = [];
  let page;
  for (let i = 0; i < TRIES; ++i) {
    page = await newPage(t, suite.browser);
    // The page first loads a small JSON of the daemon's origin, so Chromium's renderer
    // process for that site is up: what is measured is the dashboard and the daemon, not
    // a process start. Nothing of the app is loaded or cached by it.
    await page.goto(`${suite.daemon.origin}/app-config.json`);
    const requests = [];
    const t0 = Date.now();
    const since = () => Date.now() - t0;
    page.on('request', (r) => requests.push({ r, url: new URL(r.url()), sent: since(), headers: null }));
    page.on('response', (res) => {
      const entry = requests.find((q) => q.r === res.request());
      if (entry) entry.headers = since();
    });
    await page.goto(suite.daemon.url(`/runs/${runId}`), { waitUntil: 'commit' });
    await page.locator(tid('timeline-item')).first().waitFor({ state: 'visible', timeout: 30_000 }).catch((e) => {
      throw new Error(`no timeline item visible: ${e.message}${problems(page)}`);
    });
    const elapsed = since();
    tries.push(elapsed);
    // Where the time went, for whoever has to make it faster.
    console.log(`try ${i + 1}: first timeline items after ${elapsed} ms; requests (ms after navigation: sent -> response headers):`);
    for (const q of requests) {
      console.log(`  ${String(q.sent).padStart(5)} -> ${String(q.headers ?? '-').padStart(5)}  ${q.r.method()} ${q.url.pathname}${q.url.search}`);
    }
    if (i + 1 < TRIES) await page.context().close();
  }
  const elapsed = [...tries].sort((a, b) => a - b)[Math.floor(TRIES / 2)];
  console.log(`BUDGET timeline-100k-first-screen-ms=${elapsed} (median of ${TRIES} fresh pages: ${tries.join(', ')} ms)`);

  const stats = await page.locator(tid('timeline')).evaluate((el) => ({
    nodes: el.querySelectorAll('*').length,
    items: el.querySelectorAll('[data-testid="timeline-item"]').length,
    count: el.getAttribute('data-count'),
  }));
  console.log(`BUDGET timeline-100k-dom-nodes=${stats.nodes} (items rendered ${stats.items}, data-count ${stats.count})`);
  if (process.env.AGENTRY_BROWSER_BUDGET_ENFORCE === '0') {
    console.log(`BUDGET not enforced (AGENTRY_BROWSER_BUDGET_ENFORCE=0: a sanitizer build); budget ${BUDGET_MS} ms`);
  } else {
    assert.ok(elapsed < BUDGET_MS, `first timeline items took ${elapsed} ms (budget ${BUDGET_MS} ms)`);
  }
  assert.ok(stats.nodes < MAX_TIMELINE_NODES, `the timeline holds ${stats.nodes} DOM nodes: not virtualised`);
  assert.ok(stats.items > 0);

  // What it shows is the history: each rendered item is the event of its cursor.
  const shown = await page.locator(tid('timeline-item')).evaluateAll((els) => els.map((el) => ({
    cursor: Number(el.getAttribute('data-cursor')), kind: el.getAttribute('data-kind'), text: el.textContent,
  })));
  const lo = Math.min(...shown.map((i) => i.cursor));
  const page2 = await suite.daemon.api('GET', `/api/runs/${runId}/timeline?after=${lo - 1}&limit=${Math.min(5000, shown.length + 10)}`);
  const byCursor = new Map(page2.events.map((e) => [e.cursor, e]));
  for (const item of shown) {
    const event = byCursor.get(item.cursor);
    assert.ok(event, `item at cursor ${item.cursor} is not in the history`);
    if (event.kind === 'notice') {
      assert.equal(item.kind, 'notice');
      assert.ok(item.text.includes(event.payload.message), `item ${item.cursor} reads ${JSON.stringify(item.text)}, not ${event.payload.message}`);
    }
  }
  assert.equal(new Set(shown.map((i) => i.cursor)).size, shown.length, 'an item is shown twice');
});
