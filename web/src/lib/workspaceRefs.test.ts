import { describe, expect, it } from 'vitest';

import { refSuggestions, type WorkspaceRefs } from './workspaceRefs';

const refs: WorkspaceRefs = {
  runId: 'r1',
  repoRoot: '/w',
  head: { branch: 'feature', commit: 'b'.repeat(40) },
  branches: [
    { name: 'feature', commit: 'b'.repeat(40) },
    { name: 'main', commit: 'a'.repeat(40) },
  ],
  remotes: [{ name: 'origin/main', commit: 'a'.repeat(40) }],
  tags: [{ name: 'v1.0', commit: 'a'.repeat(40) }],
  truncated: false,
};

describe('refSuggestions', () => {
  it('puts HEAD and the current branch first, the baseline after the branches, each name once', () => {
    expect(refSuggestions(refs, 'r1')).toEqual(['HEAD', 'feature', 'main', 'refs/agentry/runs/r1/base', 'origin/main', 'v1.0']);
  });

  it('offers HEAD and the baseline while the list is loading or failed', () => {
    expect(refSuggestions(undefined, 'r2')).toEqual(['HEAD', 'refs/agentry/runs/r2/base']);
  });

  it('leaves out a detached HEAD\'s missing branch', () => {
    expect(refSuggestions({ ...refs, head: { branch: null, commit: 'c'.repeat(40) }, branches: [] }, 'r1')).toEqual([
      'HEAD',
      'refs/agentry/runs/r1/base',
      'origin/main',
      'v1.0',
    ]);
  });
});
