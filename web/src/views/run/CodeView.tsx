// A text file shown line by line: numbers to click (shift-click for a range), colours
// from the lazy highlighter when the path's extension names a language, and the picked
// lines offered as a task or a message to the run (ReviewActions).

import { useMemo, useState } from 'preact/hooks';
import { languageFor, splitHighlighted, textLines } from '../../lib/codeLines';
import { clickLine, isSelected, quoteLines, type LineSelection } from '../../lib/lineSelection';
import { useHighlight } from '../../lib/useHighlight';
import { ReviewActions } from './ReviewActions';

/** Files past this many lines are shown without colours (highlighting them would stall the tab). */
const HIGHLIGHT_MAX_LINES = 5_000;

export function CodeView({ runId, path, content }: { runId: string; path: string; content: string }) {
  const lines = useMemo(() => textLines(content), [content]);
  const lang = languageFor(path);
  const highlight = useHighlight(!!lang && lines.length <= HIGHLIGHT_MAX_LINES);
  const html = useMemo(() => {
    const h = highlight && lang ? highlight(content, lang) : '';
    return h ? splitHighlighted(h) : null;
  }, [highlight, lang, content]);
  const [sel, setSel] = useState<LineSelection | null>(null);
  const quote = sel ? quoteLines(path, sel.start + 1, sel.end + 1, lines.slice(sel.start, sel.end + 1), lang) : null;
  return (
    <>
      <div class="code-view file-content" data-testid="code-view" data-language={lang || undefined}>
        <table>
          <tbody>
            {lines.map((l, i) => (
              <tr class={isSelected(sel, i) ? 'picked' : ''}>
                <td class="ln" data-testid="code-line-number" data-line={i + 1} onClick={(e) => setSel((s) => clickLine(s, i, e.shiftKey))}>
                  {i + 1}
                </td>
                {html && html[i] !== undefined ? <td class="code" dangerouslySetInnerHTML={{ __html: html[i] }} /> : <td class="code">{l}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {quote && <ReviewActions key={quote} runId={runId} quote={quote} onClear={() => setSel(null)} />}
    </>
  );
}
