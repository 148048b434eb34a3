// The files of a diff with their +/− counts (and search matches); a click jumps to one.

import type { DiffFileInfo } from './DiffFile';

export function DiffFileList({ files, current, hits, onPick }: { files: DiffFileInfo[]; current: number; hits: number[]; onPick: (i: number) => void }) {
  return (
    <ul class="file-list" data-testid="diff-file-list">
      {files.length === 0 && <li class="muted">No changes.</li>}
      {files.map((f, i) => (
        <li data-testid="diff-file" data-path={f.path} class={current === i ? 'active' : ''}>
          <a href="#" onClick={(e) => (e.preventDefault(), onPick(i))} title={f.oldPath ? `${f.oldPath} → ${f.path}` : f.path}>
            <span class={'fstat fs-' + f.status}>{f.status[0].toUpperCase()}</span> {f.path}{' '}
            {f.binary ? (
              <span class="muted small">binary</span>
            ) : (
              <span class="small">
                <span class="add">+{f.additions ?? '?'}</span> <span class="del">−{f.deletions ?? '?'}</span>
              </span>
            )}
            {hits[i] > 0 && <span class="hit-count small"> · {hits[i]} found</span>}
          </a>
        </li>
      ))}
    </ul>
  );
}
