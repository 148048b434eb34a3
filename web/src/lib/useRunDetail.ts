// The run view's one live source of the run's detail: the detail stream, merged with the
// answers of actions. Every tab reads the run from here; none opens its own detail stream.

import { useEffect, useState } from 'preact/hooks';
import { apiStream } from './api';
import type { RunDetail } from './types';

const enc = encodeURIComponent;

/**
 * The run's detail, from its stream and from the answers of actions. Both race: an action's
 * answer (say abort's, still `running`) can land after the stream's newer state
 * (`aborted`), so the copy with the higher revision wins.
 */
export function useRunDetail(runId: string): { run: RunDetail | null; setRun: (next: RunDetail) => void; gone: string | null } {
  const [run, setRunState] = useState<RunDetail | null>(null);
  const [gone, setGone] = useState<string | null>(null);
  const setRun = (next: RunDetail) => setRunState((prev) => newer(prev, next));
  useEffect(() => {
    setRunState(null);
    setGone(null);
    const s = apiStream(`api/runs/${enc(runId)}/events/detail`, {
      onEvent: (d) => {
        if (d?.type === 'run_detail' && d.run) setRun(d.run);
        else if (d?.type === 'run_removed') {
          setGone('This run was deleted.');
          s.close();
        }
      },
      onGone: (status) => setGone(status === 404 ? 'No such run.' : `The run's stream answered ${status}.`),
    });
    return () => s.close();
  }, [runId]);
  return { run, setRun, gone };
}

/** Which copy of a run to keep: `next`, unless `prev` is the same run at a higher revision. */
export function newer(prev: RunDetail | null, next: RunDetail): RunDetail {
  return prev && prev.runId === next.runId && prev.revision > next.revision ? prev : next;
}
