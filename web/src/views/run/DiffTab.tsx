// The run's workspace diff for review: this run's changes (against its baseline), the
// working tree against HEAD, or two refs (a branch diff). A file list to jump from (and
// `]`/`[` keys), unified or side-by-side lines (kept as a preference), search with
// next/previous match, and picked lines offered as a task or a message to the run.

import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, ApiError, errorText } from '../../lib/api';
import { parseFilePatch } from '../../lib/diffLines';
import { findHits, stepIndex } from '../../lib/diffSearch';
import { isTyping } from '../../lib/keys';
import { clickLine, quoteDiffLines, type LineSelection } from '../../lib/lineSelection';
import { splitPatch } from '../../lib/patch';
import { loadPreferences, savePreferences, type DiffLayout } from '../../lib/preferences';
import { useResource } from '../../lib/resource';
import { refSuggestions, type WorkspaceRefs } from '../../lib/workspaceRefs';
import { BranchRefs, type BranchQuery } from './BranchRefs';
import { DiffFile, type DiffFileInfo } from './DiffFile';
import { DiffFileList } from './DiffFileList';
import { ReviewActions } from './ReviewActions';

const enc = encodeURIComponent;

interface WorkspaceDiff {
  files: DiffFileInfo[];
  patch: string;
  stats: { files: number; additions: number; deletions: number };
  truncated: boolean;
  truncatedReason: string | null;
  base: { ref: string | null; commit: string | null };
  head: { ref: string | null; commit: string | null };
}

type DiffMode = 'run' | 'working-tree' | 'branch';

/** The run has no baseline (not started, passive, too large): the working tree is shown instead. */
function noBaseline(mode: DiffMode, e: unknown): e is ApiError {
  return mode === 'run' && e instanceof ApiError && e.details?.reason === 'no_baseline';
}

/** A deep link may name the mode, and a branch diff's refs: `?mode=branch&base=main&head=feature`. */
function askedMode(): DiffMode {
  const m = new URLSearchParams(location.search).get('mode');
  return m === 'working-tree' || m === 'branch' ? m : 'run';
}

function askedBranch(): BranchQuery {
  const q = new URLSearchParams(location.search);
  return { base: q.get('base') ?? '', head: q.get('head') ?? '', comparison: q.get('comparison') === 'direct' ? 'direct' : 'merge-base' };
}

const scrollTo = (selector: string, block: ScrollLogicalPosition) => document.querySelector(selector)?.scrollIntoView?.({ block });

export function DiffTab({ runId }: { runId: string }) {
  const [mode, setMode] = useState<DiffMode>(askedMode);
  const [branch, setBranch] = useState<BranchQuery>(askedBranch);
  const [note, setNote] = useState<string | null>(null);
  const [layout, setLayout] = useState<DiffLayout>(() => loadPreferences().diffLayout);
  const [current, setCurrent] = useState(-1);
  const [query, setQuery] = useState('');
  const [hitAt, setHitAt] = useState(-1);
  const [picked, setPicked] = useState<{ file: number; sel: LineSelection } | null>(null);
  const wantsRefs = mode === 'branch' && !branch.base;
  const res = useResource<WorkspaceDiff>(
    wantsRefs
      ? null
      : (signal) =>
          api(`api/runs/${enc(runId)}/workspace/diff`, {
            query: mode === 'branch' ? { mode, base: branch.base, head: branch.head || undefined, comparison: branch.comparison } : { mode },
            signal,
          }),
    [runId, mode, branch.base, branch.head, branch.comparison],
    { clearOnError: true },
  );
  const refs = useResource<WorkspaceRefs>(
    mode === 'branch' ? (signal) => api(`api/runs/${enc(runId)}/workspace/refs`, { signal }) : null,
    [runId, mode],
  );
  useEffect(() => {
    if (!noBaseline(mode, res.error)) return;
    setNote(`No run baseline (${res.error.message}); showing the working tree against HEAD.`);
    setMode('working-tree');
  }, [res.error]);
  const diff = wantsRefs ? undefined : res.data;
  // A new answer starts the review afresh: its lines are not the ones picked before.
  useEffect(() => {
    setPicked(null);
    setCurrent(-1);
    setHitAt(-1);
  }, [diff]);
  const err = !wantsRefs && res.error && !noBaseline(mode, res.error) ? errorText(res.error) : null;
  const files = diff?.files ?? [];
  const lines = useMemo(() => {
    const pieces = diff ? splitPatch(diff.patch) : new Map<string, string>();
    return files.map((f) => parseFilePatch(pieces.get(f.path) ?? ''));
  }, [diff]);
  const hits = useMemo(() => findHits(lines, query.trim()), [lines, query]);
  const hitsPerFile = useMemo(() => files.map((_, i) => hits.filter((h) => h.file === i).length), [hits, files]);
  const hit = hitAt >= 0 ? hits[hitAt] : undefined;

  const jumpToFile = (i: number) => {
    setCurrent(i);
    scrollTo(`#diff-file-${i}`, 'start');
  };
  const stepHit = (step: 1 | -1) => {
    const next = stepIndex(hitAt, hits.length, step);
    setHitAt(next);
    if (next >= 0) setCurrent(hits[next].file);
  };
  useEffect(() => {
    if (hit) scrollTo('.diff tr.hit-current', 'center');
  }, [hit]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (isTyping(e.target) || e.metaKey || e.ctrlKey || e.altKey || !files.length) return;
      const keys = loadPreferences().keys;
      if (e.key === ']' || e.key === keys['diff.next']) jumpToFile(stepIndex(current, files.length, 1));
      else if (e.key === '[' || e.key === keys['diff.prev']) jumpToFile(stepIndex(current, files.length, -1));
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [current, files.length]);

  const chooseLayout = (l: DiffLayout) => {
    setLayout(l);
    savePreferences({ diffLayout: l });
  };
  const quote = picked && files[picked.file] ? quoteDiffLines(files[picked.file].path, lines[picked.file].slice(picked.sel.start, picked.sel.end + 1)) : null;
  const suggestions = refSuggestions(refs.data, runId);
  return (
    <div class="pad diff">
      <div class="toolbar">
        <select
          data-testid="diff-mode"
          value={mode}
          onChange={(e) => {
            setNote(null);
            setMode((e.currentTarget as HTMLSelectElement).value as DiffMode);
          }}
        >
          <option value="run">this run's changes</option>
          <option value="working-tree">working tree (HEAD)</option>
          <option value="branch">between two refs</option>
        </select>
        {mode === 'branch' && <BranchRefs value={branch} suggestions={suggestions} onApply={setBranch} />}
        <button onClick={() => void res.reload()} disabled={res.loading || wantsRefs}>
          {res.loading ? 'Loading…' : 'Refresh'}
        </button>
        <span class="seg" role="group" aria-label="Layout">
          <button data-testid="diff-layout-unified" class={layout === 'unified' ? 'active' : ''} aria-pressed={layout === 'unified'} onClick={() => chooseLayout('unified')}>
            Unified
          </button>
          <button data-testid="diff-layout-split" class={layout === 'split' ? 'active' : ''} aria-pressed={layout === 'split'} onClick={() => chooseLayout('split')}>
            Side by side
          </button>
        </span>
        {diff && (
          <span class="small" data-testid="diff-stats">
            {diff.stats.files} files <span class="add">+{diff.stats.additions}</span> <span class="del">−{diff.stats.deletions}</span>
            {diff.truncated ? ` · truncated (${diff.truncatedReason})` : ''}
          </span>
        )}
      </div>
      {diff && files.length > 0 && (
        <div class="toolbar">
          <input
            type="search"
            data-testid="diff-search"
            placeholder="Search in the diff (Enter: next match)"
            value={query}
            onInput={(e) => {
              setQuery((e.currentTarget as HTMLInputElement).value);
              setHitAt(-1);
            }}
            onKeyDown={(e) => {
              if (e.key !== 'Enter') return;
              e.preventDefault();
              stepHit(e.shiftKey ? -1 : 1);
            }}
          />
          {query.trim() && (
            <span class="small" data-testid="diff-search-count">
              {hits.length ? `${hitAt >= 0 ? hitAt + 1 : 0}/${hits.length}` : 'no match'}
            </span>
          )}
          <button disabled={!hits.length} onClick={() => stepHit(-1)} title="Previous match (Shift+Enter)">
            ↑
          </button>
          <button disabled={!hits.length} onClick={() => stepHit(1)} data-testid="diff-search-next" title="Next match (Enter)">
            ↓
          </button>
          <button data-testid="diff-prev-file" onClick={() => jumpToFile(stepIndex(current, files.length, -1))} title="Previous file ([ or p)">
            ◀ file
          </button>
          <button data-testid="diff-next-file" onClick={() => jumpToFile(stepIndex(current, files.length, 1))} title="Next file (] or n)">
            file ▶
          </button>
        </div>
      )}
      {mode === 'branch' && wantsRefs && <div class="muted small">Pick the base ref (and a head, HEAD by default), then Compare.</div>}
      {note && <div class="muted small">{note}</div>}
      {err && <div class="error">{err}</div>}
      {diff && (
        <div class="split">
          <DiffFileList files={files} current={current} hits={hitsPerFile} onPick={jumpToFile} />
          <div class="diff-files" data-testid="diff-patch">
            {files.map((f, i) => (
              <DiffFile
                index={i}
                file={f}
                lines={lines[i]}
                layout={layout}
                query={query.trim()}
                currentHit={hit?.file === i ? hit.line : -1}
                selection={picked?.file === i ? picked.sel : null}
                onLine={(line, shift) => {
                  setCurrent(i);
                  setPicked((p) => {
                    const sel = clickLine(p?.file === i ? p.sel : null, line, shift);
                    return sel ? { file: i, sel } : null;
                  });
                }}
              />
            ))}
          </div>
        </div>
      )}
      {quote && <ReviewActions key={quote} runId={runId} quote={quote} onClear={() => setPicked(null)} />}
    </div>
  );
}
