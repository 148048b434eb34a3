// Markdown rendered safely (lib/markdown.ts), with a working copy button on each code
// block. `streaming` draws the caret after the text so far.

import { copyText } from '../lib/clipboard';
import { useMarkdown } from '../lib/useMarkdown';

/** Copies `text`, and marks `button` "copied" for a moment (its label is CSS). */
export function copyWithFeedback(button: HTMLElement, text: string): void {
  void copyText(text).then((ok) => {
    button.dataset.copied = ok ? 'yes' : 'no';
    setTimeout(() => delete button.dataset.copied, 1500);
  });
}

function onCopyCode(e: MouseEvent) {
  const button = (e.target as Element).closest<HTMLElement>('[data-testid="copy-code"]');
  const code = button?.parentElement?.querySelector('pre code');
  if (!button || !code) return;
  // The highlighted code's textContent is the raw code: highlight.js only adds spans.
  copyWithFeedback(button, code.textContent ?? '');
}

export function Markdown({ text, class: cls = '', testid, streaming = false }: { text: string; class?: string; testid?: string; streaming?: boolean }) {
  const html = useMarkdown(text);
  return (
    <div
      class={`md ${cls}${streaming ? ' streaming' : ''}`}
      data-testid={testid}
      onClick={onCopyCode}
      dangerouslySetInnerHTML={{ __html: html }}
    />
  );
}
