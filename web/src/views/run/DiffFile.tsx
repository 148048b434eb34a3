// One file of a diff: its header (status, path, counts) and its lines, unified or side
// by side, with line numbers to click (shift-click for a range) and the search's matches
// marked. Git's own header lines (diff/index/---/+++) are left to the file's header.

import type { DiffLine } from '../../lib/diffLines';
import { diffPrefix, pairSideBySide } from '../../lib/diffLines';
import { markPieces } from '../../lib/diffSearch';
import { isSelected, type LineSelection } from '../../lib/lineSelection';
import type { DiffLayout } from '../../lib/preferences';

export interface DiffFileInfo {
  path: string;
  oldPath: string | null;
  status: string;
  additions: number | null;
  deletions: number | null;
  binary: boolean;
  omittedReason?: string | null;
}

interface Props {
  index: number;
  file: DiffFileInfo;
  lines: DiffLine[];
  layout: DiffLayout;
  query: string;
  /** The line of the search's current match in this file, or -1. */
  currentHit: number;
  selection: LineSelection | null;
  onLine: (line: number, shift: boolean) => void;
}

const GIT_HEADER = /^(diff --git |index |--- |\+\+\+ )/;

const LINE_CLASS: Record<DiffLine['kind'], string> = { add: 'p-add', del: 'p-del', hunk: 'p-hunk', meta: 'p-file', ctx: '' };

export function DiffFile({ index, file, lines, layout, query, currentHit, selection, onLine }: Props) {
  const shown = (i: number) => !(lines[i].kind === 'meta' && GIT_HEADER.test(lines[i].text));
  const text = (i: number) => {
    const l = lines[i];
    const body = l.kind === 'meta' || l.kind === 'hunk' ? l.text : diffPrefix(l.kind) + l.text;
    if (!query || l.kind === 'meta' || l.kind === 'hunk') return body;
    return markPieces(body, query).map((p) => (p.hit ? <mark>{p.text}</mark> : p.text));
  };
  const number = (i: number | null, n: number | null) =>
    i === null ? (
      <td class="ln" />
    ) : (
      <td class="ln" data-testid="diff-line-number" data-line={i} onClick={(e) => onLine(i, e.shiftKey)}>
        {n ?? ''}
      </td>
    );
  const rowClass = (...idx: Array<number | null>) =>
    [idx.some((i) => i !== null && isSelected(selection, i)) ? 'picked' : '', idx.includes(currentHit) && currentHit >= 0 ? 'hit-current' : '']
      .filter(Boolean)
      .join(' ');
  const wide = (i: number, cols: number) => (
    <tr class={rowClass(i)}>
      <td colSpan={cols} class={'code ' + LINE_CLASS[lines[i].kind]}>
        {text(i)}
      </td>
    </tr>
  );
  const visible = lines.map((_, i) => i).filter(shown);
  return (
    <section class="diff-file-view" id={`diff-file-${index}`} data-testid="diff-file-view" data-path={file.path}>
      <div class="diff-file-head small">
        <span class={'fstat fs-' + file.status}>{file.status[0].toUpperCase()}</span>{' '}
        <strong class="mono">{file.oldPath ? `${file.oldPath} → ${file.path}` : file.path}</strong>{' '}
        {file.binary ? <span class="muted">binary</span> : file.additions !== null && <span><span class="add">+{file.additions}</span> <span class="del">−{file.deletions}</span></span>}
        {file.omittedReason && <span class="muted"> · omitted ({file.omittedReason})</span>}
      </div>
      <table class={'diff-table ' + (layout === 'split' ? 'side-by-side' : 'unified')}>
        {layout === 'split' && (
          <colgroup>
            <col class="c-ln" />
            <col />
            <col class="c-ln" />
            <col />
          </colgroup>
        )}
        <tbody>
          {layout === 'unified'
            ? visible.map((i) => {
                const l = lines[i];
                if (l.kind === 'meta' || l.kind === 'hunk') return wide(i, 3);
                return (
                  <tr class={rowClass(i)}>
                    {number(i, l.oldNo)}
                    {number(i, l.newNo)}
                    <td class={'code ' + LINE_CLASS[l.kind]}>{text(i)}</td>
                  </tr>
                );
              })
            : pairSideBySide(lines)
                .filter((r) => r.left === null || r.left !== r.right || shown(r.left))
                .map((r) => {
                  if (r.left !== null && r.left === r.right && lines[r.left].kind !== 'ctx') return wide(r.left, 4);
                  return (
                    <tr class={rowClass(r.left, r.right)}>
                      {number(r.left, r.left === null ? null : lines[r.left].oldNo)}
                      <td class={'code side-old ' + (r.left === null ? 'empty' : LINE_CLASS[lines[r.left].kind])}>{r.left === null ? '' : text(r.left)}</td>
                      {number(r.right, r.right === null ? null : lines[r.right].newNo)}
                      <td class={'code side-new ' + (r.right === null ? 'empty' : LINE_CLASS[lines[r.right].kind])}>{r.right === null ? '' : text(r.right)}</td>
                    </tr>
                  );
                })}
        </tbody>
      </table>
    </section>
  );
}
