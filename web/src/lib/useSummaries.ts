// The run summaries store (summaries.ts) as a hook: the caller renders again on each change.

import { useEffect, useState } from 'preact/hooks';
import { summaries, type SummaryStore } from './summaries';

export function useSummaries(): SummaryStore {
  const [, set] = useState(0);
  useEffect(() => summaries.subscribe(() => set((n) => n + 1)), []);
  return summaries;
}
