// The board's multi-selection: a set of run ids, changed by a plain toggle, a range
// from the last toggled run (shift), or everything shown; ids of runs no longer shown
// drop out.

export type Selection = ReadonlySet<string>;

export function toggled(sel: Selection, id: string): Set<string> {
  const out = new Set(sel);
  if (out.has(id)) out.delete(id);
  else out.add(id);
  return out;
}

/** Adds the runs from `anchor` to `id` in `order` (just `id` when the anchor is not shown). */
export function withRange(sel: Selection, order: readonly string[], anchor: string | null, id: string): Set<string> {
  const out = new Set(sel);
  const to = order.indexOf(id);
  const from = anchor === null ? -1 : order.indexOf(anchor);
  if (to < 0) return out;
  if (from < 0) {
    out.add(id);
    return out;
  }
  for (let i = Math.min(from, to); i <= Math.max(from, to); i++) out.add(order[i]);
  return out;
}

/** The selection without ids that are not in `shown`; the same object when nothing drops. */
export function pruned(sel: Selection, shown: ReadonlySet<string>): Selection {
  for (const id of sel) if (!shown.has(id)) return new Set([...sel].filter((x) => shown.has(x)));
  return sel;
}
