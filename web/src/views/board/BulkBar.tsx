// What to do with the picked runs: each action at least one of them allows, with how
// many it applies to (lib/boardActions.ts); the others are left as they are.

import { boardActionLabel, bulkActions, type BoardAction } from '../../lib/boardActions';
import type { RunSummary } from '../../lib/types';

interface Props {
  runs: RunSummary[];
  busy: boolean;
  onAction: (a: BoardAction) => void;
  onClear: () => void;
  onAll: () => void;
  shown: number;
}

export function BulkBar({ runs, busy, onAction, onClear, onAll, shown }: Props) {
  return (
    <div class="bulk-bar" data-testid="bulk-bar" role="toolbar" aria-label="Selected runs">
      <span data-testid="bulk-count">{runs.length} selected</span>
      {runs.length < shown && (
        <button class="link" data-testid="bulk-all" onClick={onAll}>
          select all {shown}
        </button>
      )}
      {bulkActions(runs).map(({ action, count }) => (
        <button data-testid={'bulk-' + action} class={action === 'abort' ? 'danger' : ''} disabled={busy} onClick={() => onAction(action)}>
          {boardActionLabel(action)}
          {count < runs.length ? ` (${count})` : ''}
        </button>
      ))}
      <button data-testid="bulk-clear" onClick={onClear} title="Clear the selection (Esc)">
        Clear
      </button>
    </div>
  );
}
