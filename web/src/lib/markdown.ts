// Markdown for agent messages and notes, rendered to an HTML string that is safe to put
// into the page: raw HTML is shown as text, links go only to http(s), mailto or a relative
// address and open in a new tab, images are never loaded (they become links), and fenced
// code gets a copy button and, once a highlighter is set, highlighted spans.

import MarkdownIt from 'markdown-it';

/** Highlighted HTML for `code` in `lang`, or '' when the language is not known. */
export type Highlighter = (code: string, lang: string) => string;

let highlighter: Highlighter | null = null;

/** Sets the highlighter (loaded lazily, see useMarkdown); later renders use it. */
export function setHighlighter(h: Highlighter | null): void {
  highlighter = h;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const SAFE_SCHEME = /^(https?|mailto):/i;

/** A link target is safe when it has no scheme (relative, #anchor) or an allowed one. */
export function isSafeUrl(url: string): boolean {
  const u = url.trim();
  return SCHEME.test(u) ? SAFE_SCHEME.test(u) : true;
}

const LINK_ATTRS: Array<[string, string]> = [
  ['target', '_blank'],
  ['rel', 'noopener noreferrer nofollow'],
];

function create(): MarkdownIt {
  const md = new MarkdownIt('default', {
    html: false, // HTML in a message is text, never markup
    linkify: true,
    breaks: true, // agents' single newlines were visible line breaks as plain text; keep them so
    typographer: false,
    highlight: (code, lang) => (highlighter && lang ? highlighter(code, lang.toLowerCase()) : ''),
  });
  // Links, autolinks, linkified text and images all pass here; a refused one stays text.
  md.validateLink = isSafeUrl;

  const rules = md.renderer.rules;
  rules.link_open = (tokens, idx, options, _env, self) => {
    for (const [k, v] of LINK_ATTRS) tokens[idx].attrSet(k, v);
    return self.renderToken(tokens, idx, options);
  };
  // An image is a link to it: nothing is fetched from a host the message names.
  rules.image = (tokens, idx, options, env, self) => {
    const t = tokens[idx];
    const src = md.utils.escapeHtml(t.attrGet('src') ?? '');
    const alt = md.utils.escapeHtml(self.renderInlineAsText(t.children ?? [], options, env) || 'image');
    const attrs = LINK_ATTRS.map(([k, v]) => ` ${k}="${v}"`).join('');
    return `<a href="${src}"${attrs} class="md-image">[image: ${alt}]</a>`;
  };
  const fence = rules.fence!;
  // The button has no text of its own (CSS draws its label), so a message's textContent
  // stays its text.
  rules.fence = (tokens, idx, options, env, self) =>
    '<div class="md-code"><button type="button" class="md-copy" data-testid="copy-code" title="Copy code" aria-label="Copy code"></button>' +
    fence(tokens, idx, options, env, self) +
    '</div>';
  return md;
}

let instance: MarkdownIt | null = null;

/** The HTML of `src` (trimmed, so a one-paragraph message reads exactly as its text). */
export function renderMarkdown(src: string): string {
  instance ??= create();
  return instance.render(src).trim();
}

/** Whether `src` has a fenced code block that a highlighter would colour. */
export function hasFencedCode(src: string): boolean {
  return /^ {0,3}(```|~~~)/m.test(src);
}
