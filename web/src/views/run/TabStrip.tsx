// The run view's tabs, each a link (deep-linkable), with counts where one helps: pending
// approvals, tasks done, queued follow-ups.

import { linkProps } from '../../lib/router';
import { RUN_TABS, runPath, type RunTab } from '../../lib/route';
import type { RunDetail } from '../../lib/types';

export function TabStrip({ run, tab }: { run: RunDetail; tab: RunTab }) {
  const pending = run.pendingApprovals ?? [];
  return (
    <nav class="tabs" role="tablist">
      {RUN_TABS.map((t) => (
        <a role="tab" aria-selected={t === tab} class={'tab' + (t === tab ? ' active' : '')} data-testid={'tab-' + t} {...linkProps(runPath(run.runId, t))}>
          {t}
          {t === 'approvals' && pending.length > 0 && (
            <span class="badge warn" data-testid="badge">
              {pending.length}
            </span>
          )}
          {t === 'tasks' && run.taskCounts?.total > 0 && (
            <span class="muted small">
              {' '}
              {run.taskCounts.completed}/{run.taskCounts.total}
            </span>
          )}
          {t === 'queue' && (run.queuedResumeMessages?.length ?? 0) > 0 && <span class="muted small"> {run.queuedResumeMessages.length}</span>}
        </a>
      ))}
    </nav>
  );
}
