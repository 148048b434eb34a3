// The board's filters: free text (focused by `/`), status, repository, backend, agent,
// assignment, group, pinned, with a note, archived; how many runs they let through; and
// whatever the board adds at the end (the view and sort controls).

import type { ComponentChildren, Ref } from 'preact';
import type { BoardFilters, FilterOptions } from '../../lib/board';
import { STATUSES } from '../../lib/types';

interface Props {
  filters: BoardFilters;
  onChange: (f: BoardFilters) => void;
  options: FilterOptions;
  textRef: Ref<HTMLInputElement>;
  shown: number;
  total: number;
  children?: ComponentChildren;
}

/** The last path segment, for a repository's option label (the full path is its title). */
const baseName = (p: string) => p.replace(/\/+$/, '').split('/').pop() || p;

export function FilterBar({ filters: f, onChange, options, textRef, shown, total, children }: Props) {
  const set = (k: keyof BoardFilters) => (e: Event) => {
    const el = e.currentTarget as HTMLInputElement;
    onChange({ ...f, [k]: el.type === 'checkbox' ? el.checked : el.value });
  };
  const select = (k: 'status' | 'agent' | 'assignment' | 'group' | 'repo' | 'backend', all: string, values: readonly string[], label = (v: string) => v) => (
    <select data-testid={'filter-' + k} value={f[k]} onChange={set(k)} aria-label={k[0].toUpperCase() + k.slice(1)}>
      <option value="">{all}</option>
      {values.map((s) => (
        <option value={s} title={s}>
          {label(s)}
        </option>
      ))}
      {f[k] && !values.includes(f[k]) && <option value={f[k]}>{label(f[k])}</option>}
    </select>
  );
  return (
    <div class="filters">
      <input ref={textRef} data-testid="filter-text" type="search" placeholder="Filter runs  ( / )" value={f.text} onInput={set('text')} aria-label="Filter runs" />
      {select('status', 'all statuses', STATUSES)}
      {select('repo', 'all repos', options.repos, baseName)}
      {select('backend', 'all backends', options.backends)}
      {select('agent', 'all agents', options.agents)}
      {select('assignment', 'all assignments', options.assignments)}
      {select('group', 'all groups', options.groups)}
      <label class="check">
        <input type="checkbox" data-testid="filter-pinned" checked={f.pinned} onChange={set('pinned')} /> pinned
      </label>
      <label class="check">
        <input type="checkbox" data-testid="filter-notes" checked={f.notes} onChange={set('notes')} /> with note
      </label>
      <label class="check">
        <input type="checkbox" data-testid="filter-archived" checked={f.archived} onChange={set('archived')} /> archived
      </label>
      {children}
      <span class="muted count" data-testid="board-count">
        {shown} of {total}
      </span>
    </div>
  );
}
