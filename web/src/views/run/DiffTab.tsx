// The run's workspace diff: this run's changes (against its baseline) or the working tree
// against HEAD, as a file list and the patch of all files or the one picked.

import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, ApiError, errorText } from '../../lib/api';
import { splitPatch } from '../../lib/patch';
import { useResource } from '../../lib/resource';
import { Patch } from './Patch';

const enc = encodeURIComponent;

interface WorkspaceDiff {
  files: Array<{ path: string; oldPath: string | null; status: string; additions: number | null; deletions: number | null; binary: boolean }>;
  patch: string;
  stats: { files: number; additions: number; deletions: number };
  truncated: boolean;
  truncatedReason: string | null;
  base: { ref: string | null; commit: string | null };
}

type DiffMode = 'run' | 'working-tree';

/** The run has no baseline (not started, passive, too large): the working tree is shown instead. */
function noBaseline(mode: DiffMode, e: unknown): e is ApiError {
  return mode === 'run' && e instanceof ApiError && e.details?.reason === 'no_baseline';
}

export function DiffTab({ runId }: { runId: string }) {
  const asked = new URLSearchParams(location.search).get('mode');
  const [mode, setMode] = useState<DiffMode>(asked === 'working-tree' ? 'working-tree' : 'run');
  const [note, setNote] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const res = useResource<WorkspaceDiff>((signal) => api(`api/runs/${enc(runId)}/workspace/diff`, { query: { mode }, signal }), [runId, mode], { clearOnError: true });
  useEffect(() => {
    if (!noBaseline(mode, res.error)) return;
    setNote(`No run baseline (${res.error.message}); showing the working tree against HEAD.`);
    setMode('working-tree');
  }, [res.error]);
  const diff = res.data;
  const err = res.error && !noBaseline(mode, res.error) ? errorText(res.error) : null;
  const pieces = useMemo(() => (diff ? splitPatch(diff.patch) : new Map<string, string>()), [diff]);
  const shownPatch = selected && pieces.has(selected) ? pieces.get(selected)! : (diff?.patch ?? '');
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
        </select>
        <button onClick={() => void res.reload()} disabled={res.loading}>
          {res.loading ? 'Loading…' : 'Refresh'}
        </button>
        {diff && (
          <span class="small">
            {diff.stats.files} files <span class="add">+{diff.stats.additions}</span> <span class="del">−{diff.stats.deletions}</span>
            {diff.truncated ? ` · truncated (${diff.truncatedReason})` : ''}
          </span>
        )}
      </div>
      {note && <div class="muted small">{note}</div>}
      {err && <div class="error">{err}</div>}
      {diff && (
        <div class="split">
          <ul class="file-list">
            {diff.files.length === 0 && <li class="muted">No changes.</li>}
            {diff.files.length > 0 && (
              <li>
                <a class={selected === null ? 'active' : ''} href="#" onClick={(e) => (e.preventDefault(), setSelected(null))}>
                  all files
                </a>
              </li>
            )}
            {diff.files.map((f) => (
              <li data-testid="diff-file" data-path={f.path} class={selected === f.path ? 'active' : ''}>
                <a href="#" onClick={(e) => (e.preventDefault(), setSelected(f.path))} title={f.oldPath ? `${f.oldPath} → ${f.path}` : f.path}>
                  <span class={'fstat fs-' + f.status}>{f.status[0].toUpperCase()}</span> {f.path}{' '}
                  {f.binary ? (
                    <span class="muted small">binary</span>
                  ) : (
                    <span class="small">
                      <span class="add">+{f.additions ?? '?'}</span> <span class="del">−{f.deletions ?? '?'}</span>
                    </span>
                  )}
                </a>
              </li>
            ))}
          </ul>
          <Patch text={shownPatch} testid="diff-patch" />
        </div>
      )}
    </div>
  );
}
