// The two refs of a branch diff (base and head) and how they are compared: typed freely,
// with the repository's branches, remote-tracking branches and tags offered as suggestions.

import { useState } from 'preact/hooks';

export interface BranchQuery {
  base: string;
  head: string;
  comparison: 'merge-base' | 'direct';
}

export function BranchRefs({ value, suggestions, onApply }: { value: BranchQuery; suggestions: string[]; onApply: (q: BranchQuery) => void }) {
  const [draft, setDraft] = useState(value);
  const field = (name: 'base' | 'head', placeholder: string) => (
    <input
      data-testid={`diff-${name}`}
      list="diff-refs"
      placeholder={placeholder}
      value={draft[name]}
      onInput={(e) => setDraft({ ...draft, [name]: (e.currentTarget as HTMLInputElement).value })}
      size={14}
    />
  );
  return (
    <form
      class="branch-refs"
      data-testid="diff-branch-refs"
      onSubmit={(e) => {
        e.preventDefault();
        onApply({ ...draft, base: draft.base.trim(), head: draft.head.trim() });
      }}
    >
      {field('base', 'base ref (required)')}
      <span class="muted">…</span>
      {field('head', 'head ref (HEAD)')}
      <select
        data-testid="diff-comparison"
        value={draft.comparison}
        title="merge-base: what head added since it left base; direct: base against head"
        onChange={(e) => setDraft({ ...draft, comparison: (e.currentTarget as HTMLSelectElement).value as BranchQuery['comparison'] })}
      >
        <option value="merge-base">since merge base</option>
        <option value="direct">direct</option>
      </select>
      <button type="submit" data-testid="diff-compare" disabled={!draft.base.trim()}>
        Compare
      </button>
      <datalist id="diff-refs">
        {suggestions.map((r) => (
          <option value={r} />
        ))}
      </datalist>
    </form>
  );
}
