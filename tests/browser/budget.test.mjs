// The first screen of a run with 100,000 durable timeline events: from navigation to the
// first timeline items being visible, in a fresh page, must take under a second, and the
// timeline must be virtualised (its DOM far smaller than the history).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Daemon, launchBrowser, newPage, tid } from './harness.mjs';
import { mock, problems, standardConfig } from './fixtures.mjs';

const EVENTS = 100_000;
const BUDGET_MS = 1000;
const MAX_TIMELINE_NODES = 5000;

let daemon;
let browser;
before(async () => {
  [daemon, browser] = await Promise.all([Daemon.start({ config: standardConfig() }), launchBrowser()]);
});
after(async () => {
  await browser?.close();
  await daemon?.stop();
});

test(`a ${EVENTS}-event timeline shows its first items within ${BUDGET_MS} ms`, async (t) => {
  const started = Date.now();
  const runId = await daemon.createRun({
    agent: 'mock', name: 'a long history',
    message: mock({ events: EVENTS, kind: 'notice', ephemeral: false }),
  });
  await daemon.waitForStatus(runId, 'success', { timeoutMs: 180_000 });
  // The history holds every event: cursors run past EVENTS (the attempt's own events too).
  const tail = await daemon.api('GET', `/api/runs/${runId}/timeline?limit=5000&after=${EVENTS - 10}`);
  const notices = tail.events.filter((e) => e.kind === 'notice' && e.payload.index !== undefined).map((e) => e.payload.index);
  assert.ok(notices.includes(EVENTS), `the last notice (index ${EVENTS}) is not in the history`);
  console.log(`the run wrote ${EVENTS} events in ${Date.now() - started} ms; the history ends at cursor ${tail.lastCursor}`);

  const page = await newPage(t, browser);
  const t0 = Date.now();
  await page.goto(daemon.url(`/runs/${runId}`), { waitUntil: 'commit' });
  await page.locator(tid('timeline-item')).first().waitFor({ state: 'visible', timeout: 30_000 }).catch((e) => {
    throw new Error(`no timeline item visible: ${e.message}${problems(page)}`);
  });
  const elapsed = Date.now() - t0;
  console.log(`BUDGET timeline-100k-first-screen-ms=${elapsed}`);
  // Where the time went, for whoever has to make it faster.
  const timing = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const resources = performance.getEntriesByType('resource').map((r) => ({
      name: new URL(r.name).pathname + new URL(r.name).search, start: Math.round(r.startTime), end: Math.round(r.responseEnd),
    }));
    return { domContentLoaded: Math.round(nav?.domContentLoadedEventEnd ?? -1), resources };
  });
  console.log(`timing: DOMContentLoaded at ${timing.domContentLoaded} ms; requests:`);
  for (const r of timing.resources) console.log(`  ${String(r.start).padStart(5)} -> ${String(r.end).padStart(5)} ms  ${r.name}`);

  const stats = await page.locator(tid('timeline')).evaluate((el) => ({
    nodes: el.querySelectorAll('*').length,
    items: el.querySelectorAll('[data-testid="timeline-item"]').length,
    count: el.getAttribute('data-count'),
  }));
  console.log(`BUDGET timeline-100k-dom-nodes=${stats.nodes} (items rendered ${stats.items}, data-count ${stats.count})`);
  assert.ok(elapsed < BUDGET_MS, `first timeline items took ${elapsed} ms (budget ${BUDGET_MS} ms)`);
  assert.ok(stats.nodes < MAX_TIMELINE_NODES, `the timeline holds ${stats.nodes} DOM nodes: not virtualised`);
  assert.ok(stats.items > 0);
});
