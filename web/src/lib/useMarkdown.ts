// The HTML of a Markdown text, memoized on the text (a streaming message re-renders only
// when it grew). The highlighter is imported the first time any text has fenced code,
// then every Markdown view re-renders with colours.

import { useEffect, useMemo, useState } from 'preact/hooks';
import { hasFencedCode, renderMarkdown, setHighlighter } from './markdown';

let loaded = false;
let loading: Promise<void> | null = null;

function loadHighlighter(): Promise<void> {
  loading ??= import('./highlight').then(
    (m) => {
      setHighlighter(m.highlight);
      loaded = true;
    },
    () => {
      loading = null; // a failed chunk load leaves code plain; a later block tries again
    },
  );
  return loading;
}

export function useMarkdown(text: string): string {
  const wantsColour = hasFencedCode(text);
  const [highlighted, setHighlighted] = useState(loaded);
  useEffect(() => {
    if (!wantsColour || highlighted) return;
    let live = true;
    void loadHighlighter().then(() => live && loaded && setHighlighted(true));
    return () => {
      live = false;
    };
  }, [wantsColour, highlighted]);
  return useMemo(() => renderMarkdown(text), [text, wantsColour && highlighted]);
}
