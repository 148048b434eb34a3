// The run view's header: name, status and why, where and how the run runs, its note; then
// its actions, schedule and dependencies.

import { ago, usageText } from '../../lib/format';
import { linkProps } from '../../lib/router';
import { runPath } from '../../lib/route';
import type { RunDetail } from '../../lib/types';
import { Markdown } from '../Markdown';
import { Dependencies } from './Dependencies';
import { RunActions } from './RunActions';
import { Schedule } from './Schedule';

export function RunHeader({ run, onRun }: { run: RunDetail; onRun: (r: RunDetail) => void }) {
  return (
    <header class="run-header">
      <div class="rh-top">
        <a class="back" {...linkProps('/')} title="Back (Esc)">
          ←
        </a>
        <h1 class="rh-name">
          {run.pinned && <span class="pin">★ </span>}
          {run.name || run.runId}
        </h1>
        <span class={'status-chip st-' + run.status} data-testid="run-header-status">
          {run.status}
        </span>
        {run.archived && <span class="pill">archived</span>}
      </div>
      <div class="rh-reason" data-testid="run-reason">
        {run.statusReason}
      </div>
      <div class="rh-meta muted small">
        <span class="mono">{run.runId}</span> · {run.agent}
        {run.assignment ? ' · ' + run.assignment : ''} · {run.backend}
        {run.model ? ' · ' + run.model : ''}
        {usageText(run.usage) && (
          <span data-testid="run-usage" title={(run.usage?.warnings ?? []).join('\n') || 'tokens used and their cost (prices.yaml)'}>
            {' · '}
            {usageText(run.usage)}
          </span>
        )}
        {run.environment && (
          <span data-testid="run-environment" title={`execution environment: ${run.environment.kind}, network ${run.environment.network || 'the container’s'}`}>
            {' · in '}
            {run.environment.kind} {run.environment.name}
          </span>
        )}{' '}
        · <span class="mono">{run.cwd}</span> · created {ago(run.createdAt)}
        {run.runGroupId !== run.runId ? ` · group ${run.runGroupId}` : ''}
        {run.parentRunId && (
          <>
            {' '}
            · parent <a {...linkProps(runPath(run.parentRunId))}>{run.parentRunId}</a>
          </>
        )}
        {run.damaged && <span class="error-text"> · damaged: {run.damaged.reason}</span>}
        {run.owner && (
          <span data-testid="run-owner" title={`lease epoch ${run.owner.epoch}, ${run.owner.daemonId}`}>
            {' '}
            · on <a {...linkProps('/members')}>{run.owner.name}</a>
          </span>
        )}
      </div>
      {run.note && <div class="rh-note small"><span class="muted">note:</span> <Markdown text={run.note} class="md-note" /></div>}
      <RunActions run={run} onRun={onRun} />
      <Schedule run={run} onRun={onRun} />
      <Dependencies run={run} onRun={onRun} />
    </header>
  );
}
