// The refs a branch diff can compare, as GET /api/runs/:id/workspace/refs answers them,
// turned into the suggestions the two ref fields offer.

import type { WorkspaceRefs } from './api.gen';

export type { WorkspaceRefs };

/** HEAD and the checked-out branch first, then the other branches, the run's baseline,
 * remote-tracking branches and tags; each name once. */
export function refSuggestions(refs: WorkspaceRefs | null | undefined, runId: string): string[] {
  const names = ['HEAD'];
  if (refs?.head.branch) names.push(refs.head.branch);
  for (const b of refs?.branches ?? []) names.push(b.name);
  names.push(`refs/agentry/runs/${runId}/base`);
  for (const r of refs?.remotes ?? []) names.push(r.name);
  for (const t of refs?.tags ?? []) names.push(t.name);
  return [...new Set(names)];
}
