// The board's filters: free text (focused by `/`), status, agent, assignment, group,
// archived; and how many runs they let through.

import type { Ref } from 'preact';
import type { BoardFilters } from '../../lib/board';
import { STATUSES } from '../../lib/types';

interface Props {
  filters: BoardFilters;
  onChange: (f: BoardFilters) => void;
  options: { agents: string[]; assignments: string[]; groups: string[] };
  textRef: Ref<HTMLInputElement>;
  shown: number;
  total: number;
}

export function FilterBar({ filters: f, onChange, options, textRef, shown, total }: Props) {
  const set = (k: keyof BoardFilters) => (e: Event) => {
    const el = e.currentTarget as HTMLInputElement;
    onChange({ ...f, [k]: el.type === 'checkbox' ? el.checked : el.value });
  };
  return (
    <div class="filters">
      <input ref={textRef} data-testid="filter-text" type="search" placeholder="Filter runs  ( / )" value={f.text} onInput={set('text')} aria-label="Filter runs" />
      <select data-testid="filter-status" value={f.status} onChange={set('status')} aria-label="Status">
        <option value="">all statuses</option>
        {STATUSES.map((s) => (
          <option value={s}>{s}</option>
        ))}
      </select>
      <select data-testid="filter-agent" value={f.agent} onChange={set('agent')} aria-label="Agent">
        <option value="">all agents</option>
        {options.agents.map((s) => (
          <option value={s}>{s}</option>
        ))}
      </select>
      <select data-testid="filter-assignment" value={f.assignment} onChange={set('assignment')} aria-label="Assignment">
        <option value="">all assignments</option>
        {options.assignments.map((s) => (
          <option value={s}>{s}</option>
        ))}
      </select>
      <select data-testid="filter-group" value={f.group} onChange={set('group')} aria-label="Group">
        <option value="">all groups</option>
        {options.groups.map((s) => (
          <option value={s}>{s}</option>
        ))}
      </select>
      <label class="check">
        <input type="checkbox" data-testid="filter-archived" checked={f.archived} onChange={set('archived')} /> archived
      </label>
      <span class="muted count" data-testid="board-count">
        {shown} of {total}
      </span>
    </div>
  );
}
