// One run in the columns view: pick box, status, name, what it is doing, tasks, age, and
// its action menu. Fixed height (CARD_H), so a column is a fixed-row virtual list.

import { ago } from '../../lib/format';
import { linkProps } from '../../lib/router';
import { runPath } from '../../lib/route';
import type { ItemProps } from './BoardItem';
import { CardMenu } from './CardMenu';
import { PickBox } from './PickBox';

export const CARD_H = 84;

export function RunCard({ run: r, cursor, picked, menuOpen, busy, onPick, onMenu, onAction }: ItemProps) {
  const t = r.taskCounts;
  const activity = r.activeTask ? r.activeTask.title : r.statusReason;
  const link = linkProps(runPath(r.runId));
  return (
    <div
      class={'run-card' + (cursor ? ' selected' : '') + (picked ? ' picked' : '') + (r.archived ? ' archived' : '')}
      data-testid="run-card"
      data-run-id={r.runId}
      data-status={r.status}
    >
      <div class="rc-top">
        <PickBox runId={r.runId} picked={picked} onPick={onPick} />
        <span class={'status-chip st-' + r.status} data-testid="run-status">
          {r.status}
        </span>
        {r.pinned && (
          <span class="pin" title="pinned">
            ★
          </span>
        )}
        {r.notePresent && (
          <span class="muted" title="has a note">
            ✎
          </span>
        )}
        <span class="muted rc-time">{ago(r.updatedAt)}</span>
        <CardMenu run={r} open={menuOpen} busy={busy} onOpen={(o) => onMenu(o ? r.runId : null)} onAction={onAction} />
      </div>
      <a
        class="rc-name"
        data-testid="run-card-link"
        href={link.href}
        onClick={(e) => {
          if (e.shiftKey) {
            e.preventDefault();
            onPick(r.runId, true);
          } else link.onClick(e);
        }}
      >
        {r.name || r.runId}
      </a>
      <div class="rc-sub muted">
        {r.agent}
        {activity ? ' · ' + activity : ''}
        {t && t.total > 0 && (
          <span class="pill" data-testid="run-tasks" title={`${t.completed} of ${t.total} tasks completed`}>
            {t.completed}/{t.total}
          </span>
        )}
      </div>
    </div>
  );
}
