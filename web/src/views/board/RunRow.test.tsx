// @vitest-environment happy-dom
import { afterEach, describe, expect, it } from 'vitest';

import type { RunSummary } from '../../lib/types';
import { mount, type Mounted } from '../../test/render';
import { RunRow } from './RunRow';

const base = {
  runId: 'r-1',
  name: 'fix the parser',
  status: 'running',
  agent: 'coder',
  pinned: true,
  notePresent: true,
  taskCounts: { total: 3, completed: 1 },
} as unknown as RunSummary;

let mounted: Mounted | undefined;
afterEach(() => mounted?.unmount());

describe('RunRow', () => {
  it('shows status, name, pin, note and the task count, and links to the run', async () => {
    mounted = await mount(<RunRow run={base} selected={false} />);
    const row = mounted.byTestId('run-row');
    expect(mounted.byTestId('run-status').textContent).toBe('running');
    expect(row.textContent).toContain('★');
    expect(row.textContent).toContain('fix the parser');
    expect(row.querySelector('[title="has a note"]')).not.toBeNull();
    expect(mounted.byTestId('run-tasks').textContent).toBe('1/3');
    expect(row.getAttribute('href')).toContain('r-1');
  });

  it('marks the selected row and leaves out chips the run has no data for', async () => {
    mounted = await mount(<RunRow run={{ ...base, pinned: false, taskCounts: undefined } as unknown as RunSummary} selected />);
    const row = mounted.byTestId('run-row');
    expect(row.classList.contains('selected')).toBe(true);
    expect(row.textContent).not.toContain('★');
    expect(mounted.all('[data-testid="run-tasks"]')).toHaveLength(0);
    expect(mounted.all('[data-testid="run-usage"]')).toHaveLength(0);
  });
});
