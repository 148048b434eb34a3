// Definitions the browser tests' daemons load, mock scripts, and UI helpers shared by
// the test files. The dashboard's DOM contract is its data-testid attributes (see
// tests/browser/README.md).
import { setTimeout as sleep } from 'node:timers/promises';
import { mockAgent, tid, until } from './harness.mjs';

/// A mock step as one `@mock {...}` line of a run's message.
export const mock = (...steps) => steps.map((s) => `@mock ${JSON.stringify(s)}`).join('\n');

export const FEATURE_TEXT = (v) =>
  `Building ${v.feature}: size ${v.size}, count ${v.count}, urgent ${v.urgent}. All done.`;

/// The config directory: two mock agents (one that asks before acting), an assignment
/// with typed vars whose message scripts a streamed answer, and one with tasks.
export function standardConfig() {
  const streamed = JSON.stringify({
    say: FEATURE_TEXT({ feature: '{{feature}}', size: '{{size}}', count: '{{count}}', urgent: '{{urgent}}' }),
    deltas: 20,
    rateHz: 8,
  });
  return {
    ...mockAgent({ name: 'mock', description: 'The mock backend, scripted by the message' }),
    ...mockAgent({ name: 'careful', description: 'Asks before acting', unrestricted: false }),
    'assignments/feature/assignment.md': [
      '---',
      'schemaVersion: 1',
      'description: Build a feature (typed vars)',
      'maxRetries: 0',
      'vars:',
      '  feature:',
      '    type: string',
      '    required: true',
      '    description: What to build',
      '  count:',
      '    type: number',
      '    default: 2',
      '  urgent:',
      '    type: boolean',
      '    default: false',
      '  size:',
      '    type: enum',
      '    values: [small, large]',
      '    default: small',
      'message: |',
      '  Build {{feature}}.',
      `  @mock ${streamed}`,
      '---',
      'Work carefully on {{feature}}.',
      '',
    ].join('\n'),
    'assignments/tasked/assignment.md': [
      '---',
      'schemaVersion: 1',
      'description: Work with a task list',
      'message: "Plan, then build."',
      'tasks:',
      '  - id: plan',
      '    title: Plan the work',
      '  - id: build',
      '    title: Build it',
      '    body: Build what was planned.',
      '---',
      'Follow the tasks.',
      '',
    ].join('\n'),
  };
}

/// The board's row of a run.
export const runRow = (runId) => tid('run-row', `[data-run-id="${runId}"]`);

/// Clicks the run view's action `name`, then `confirm-yes` if the dashboard asks for a
/// confirmation, until `done()` (an API check) holds.
export async function runAction(page, name, done, { timeoutMs = 15_000 } = {}) {
  await page.locator(tid(`action-${name}`)).click();
  const deadline = Date.now() + timeoutMs;
  let confirmed = false;
  for (;;) {
    if (await done()) return;
    if (!confirmed && (await page.locator(tid('confirm-yes')).isVisible())) {
      await page.locator(tid('confirm-yes')).click();
      confirmed = true;
    }
    if (Date.now() > deadline) throw new Error(`action-${name} did not take effect within ${timeoutMs} ms${problems(page)}`);
    await sleep(50);
  }
}

/// Sets a form control whatever its kind: checkbox, select or text input.
export async function setControl(locator, value) {
  const kind = await locator.evaluate((el) => `${el.tagName.toLowerCase()}:${(el.getAttribute('type') || '').toLowerCase()}`);
  if (kind === 'input:checkbox' || kind === 'input:radio') {
    await locator.setChecked(value === true || value === 'true');
  } else if (kind.startsWith('select:')) {
    await locator.selectOption(String(value));
  } else {
    await locator.fill(String(value));
  }
}

/// The timeline's items as the page shows them: [{ kind, cursor, text }].
export async function timelineItems(page) {
  return page.locator(tid('timeline-item')).evaluateAll((items) => items.map((el) => ({
    kind: el.getAttribute('data-kind'),
    cursor: el.getAttribute('data-cursor'),
    text: el.querySelector('[data-testid="message-text"]')?.textContent ?? null,
  })));
}

/// Every problem the page reported (uncaught errors, console errors), for messages.
export const problems = (page) => (page.problems.length ? `\npage problems:\n  ${page.problems.join('\n  ')}` : '');

/// Opens a run's view the way a user does: the board, then its row (deep links have a
/// test of their own in routing.test.mjs).
export async function openRun(page, daemon, runId) {
  if (!(await page.locator(tid('board')).isVisible().catch(() => false))) {
    await page.goto(daemon.url('/'));
    await page.locator(tid('board')).waitFor();
  }
  await page.locator(runRow(runId)).click();
  await page.locator(tid('run-view', `[data-run-id="${runId}"]`)).waitFor();
}

/// The run view's header status, trimmed.
export const headerStatus = async (page) => ((await page.locator(tid('run-header-status')).textContent()) ?? '').trim();

/// Waits until the run view's header shows `status`; the failure names what it showed.
export async function waitHeaderStatus(page, status, { timeoutMs = 15_000 } = {}) {
  let shown = null;
  try {
    await until(async () => (shown = await headerStatus(page).catch(() => null)) === status, { timeoutMs, what: `header ${status}` });
  } catch {
    throw new Error(`the run view's header shows ${JSON.stringify(shown)}, not ${JSON.stringify(status)}, after ${timeoutMs} ms at ${page.url()}${problems(page)}`);
  }
}
