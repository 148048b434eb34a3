// The board's view (grouped list or status columns), sort and density, kept in preferences.

import type { BoardSort } from '../../lib/board';
import { SORTS } from '../../lib/board';
import type { BoardView, Density } from '../../lib/preferences';

interface Props {
  view: BoardView;
  sort: BoardSort;
  density: Density;
  onView: (v: BoardView) => void;
  onSort: (s: BoardSort) => void;
  onDensity: (d: Density) => void;
}

export function BoardToolbar({ view, sort, density, onView, onSort, onDensity }: Props) {
  const tab = (v: BoardView, label: string) => (
    <button class={view === v ? 'active' : ''} aria-pressed={view === v} data-testid={'board-view-' + v} onClick={() => onView(v)}>
      {label}
    </button>
  );
  return (
    <span class="board-toolbar">
      <span class="seg" role="group" aria-label="View">
        {tab('list', 'List')}
        {tab('columns', 'Columns')}
      </span>
      <select data-testid="board-sort" value={sort} aria-label="Sort" onChange={(e) => onSort((e.currentTarget as HTMLSelectElement).value as BoardSort)}>
        {SORTS.map((s) => (
          <option value={s}>sort: {s}</option>
        ))}
      </select>
      {view === 'list' && (
        <button
          data-testid="board-density"
          aria-pressed={density === 'compact'}
          title={density === 'compact' ? 'Show two lines per run' : 'Show one line per run'}
          onClick={() => onDensity(density === 'compact' ? 'comfortable' : 'compact')}
        >
          {density === 'compact' ? 'Comfortable' : 'Compact'}
        </button>
      )}
    </span>
  );
}
