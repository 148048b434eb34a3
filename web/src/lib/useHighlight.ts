// The highlighter for a file preview: the lazy highlight.js chunk (lib/highlight.ts, the
// same one Markdown uses) imported the first time a preview asks, null until it is here.

import { useEffect, useState } from 'preact/hooks';

type Highlight = (code: string, lang: string) => string;

let loaded: Highlight | null = null;
let loading: Promise<Highlight | null> | null = null;

function load(): Promise<Highlight | null> {
  loading ??= import('./highlight').then(
    (m) => (loaded = m.highlight),
    () => ((loading = null), null), // a failed chunk load leaves code plain; a later preview tries again
  );
  return loading;
}

/** The highlight function once loaded; `wanted` false (no language) never loads it. */
export function useHighlight(wanted: boolean): Highlight | null {
  const [fn, setFn] = useState<Highlight | null>(loaded);
  useEffect(() => {
    if (!wanted || fn) return;
    let live = true;
    void load().then((h) => live && h && setFn(() => h));
    return () => {
      live = false;
    };
  }, [wanted, fn]);
  return fn;
}
