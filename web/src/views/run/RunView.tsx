// One run: header and actions, tabs, and the tab shown. The run's detail comes from one
// place (useRunDetail: the detail stream and the answers of actions) and is handed down;
// the timeline is held here too, so it survives switching tabs.

import { linkProps } from '../../lib/router';
import type { RunTab } from '../../lib/route';
import { useRunDetail } from '../../lib/useRunDetail';
import { useResetEpoch, useTimeline } from '../../lib/useTimeline';
import { Approvals } from './Approvals';
import { Attachments } from './Attachments';
import { Audit } from './Audit';
import { BrowserTab } from './BrowserTab';
import { Composer } from './composer/Composer';
import { DiffTab } from './DiffTab';
import { Files } from './Files';
import { Queue } from './Queue';
import { RunHeader } from './RunHeader';
import { Sessions } from './Sessions';
import { TabStrip } from './TabStrip';
import { Tasks } from './Tasks';
import { Timeline } from './Timeline';

export function RunView({ runId, tab }: { runId: string; tab: RunTab }) {
  const { run, setRun, gone } = useRunDetail(runId);
  const timeline = useTimeline(runId, useResetEpoch(run));

  if (gone)
    return (
      <section class="run-view" data-testid="run-view" data-run-id={runId}>
        <div class="error">{gone}</div>
        <a {...linkProps('/')}>Back to the board</a>
      </section>
    );
  if (!run)
    return (
      <section class="run-view" data-testid="run-view" data-run-id={runId}>
        <div class="muted pad">Loading {runId}…</div>
      </section>
    );

  const pending = run.pendingApprovals ?? [];
  return (
    <section class="run-view" data-testid="run-view" data-run-id={runId}>
      <RunHeader run={run} onRun={setRun} />
      <TabStrip run={run} tab={tab} />
      <div class="tab-body">
        {tab === 'timeline' && (
          <div class="timeline-tab">
            {pending.length > 0 && <Approvals run={run} compact />}
            <Timeline timeline={timeline} />
          </div>
        )}
        {tab === 'tasks' && <Tasks run={run} />}
        {tab === 'approvals' && <Approvals run={run} />}
        {tab === 'queue' && <Queue run={run} onRun={setRun} />}
        {tab === 'sessions' && <Sessions run={run} />}
        {tab === 'audit' && <Audit runId={runId} />}
        {tab === 'diff' && <DiffTab runId={runId} />}
        {tab === 'files' && <Files runId={runId} />}
        {tab === 'attachments' && <Attachments run={run} />}
        {tab === 'browser' && <BrowserTab run={run} />}
      </div>
      <Composer run={run} onRun={setRun} />
    </section>
  );
}
