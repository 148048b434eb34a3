// One run on the board: status, name, what it is doing, and its chips (tasks, deps,
// schedule, diff, usage, queue).

import { ago, usageText } from '../../lib/format';
import { linkProps } from '../../lib/router';
import { runPath } from '../../lib/route';
import type { RunSummary } from '../../lib/types';

export function RunRow({ run: r, selected }: { run: RunSummary; selected: boolean }) {
  const t = r.taskCounts;
  const activity = r.activeTask ? r.activeTask.title : r.statusReason;
  return (
    <a class={'run-row' + (selected ? ' selected' : '') + (r.archived ? ' archived' : '')} data-testid="run-row" data-run-id={r.runId} {...linkProps(runPath(r.runId))}>
      <span class={'status-chip st-' + r.status} data-testid="run-status">
        {r.status}
      </span>
      <span class="rr-main">
        <span class="rr-name">
          {r.pinned && <span class="pin" title="pinned">★ </span>}
          {r.name || r.runId}
          {r.name && <span class="muted mono"> {r.runId}</span>}
          {r.notePresent && (
            <span class="muted" title="has a note">
              {' '}
              ✎
            </span>
          )}
        </span>
        <span class="rr-sub muted">
          {r.agent}
          {r.assignment ? ' · ' + r.assignment : ''}
          {activity ? ' · ' + activity : ''}
        </span>
      </span>
      <span class="rr-meta">
        {t && t.total > 0 && (
          <span class="pill" data-testid="run-tasks" title={`${t.completed} of ${t.total} tasks completed`}>
            {t.completed}/{t.total}
          </span>
        )}
        {r.dependencyState && r.dependencyState.state !== 'none' && (
          <span class={'pill dep-' + r.dependencyState.state} title="dependencies">
            deps {r.dependencyState.satisfied}/{r.dependencyState.total}
          </span>
        )}
        {r.scheduleState && (
          <span class="pill" title={r.scheduleState.reason ?? ''}>
            sched {r.scheduleState.state}
            {r.scheduleState.nextAt ? ' ' + ago(r.scheduleState.nextAt) : ''}
          </span>
        )}
        {r.diffstat && r.diffstat.files > 0 && (
          <span class="pill mono">
            <span class="add">+{r.diffstat.additions}</span> <span class="del">−{r.diffstat.deletions}</span>
          </span>
        )}
        {usageText(r.usage) && (
          <span class="pill mono" data-testid="run-usage" title={(r.usage?.warnings ?? []).join('\n') || 'tokens used and their cost'}>
            {usageText(r.usage)}
          </span>
        )}
        {r.queuedMessageCount > 0 && <span class="pill">queued {r.queuedMessageCount}</span>}
        <span class="muted rr-time">{ago(r.updatedAt)}</span>
      </span>
    </a>
  );
}
