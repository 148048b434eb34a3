// A file shown line by line with colours: the highlight.js language a path's extension
// calls for, and highlighted HTML cut into lines (a span that runs over a line break,
// a block comment, is closed at the end of the line and opened again on the next).

const BY_EXTENSION: Record<string, string> = {
  sh: 'bash', bash: 'bash', zsh: 'bash',
  c: 'c', h: 'c',
  cc: 'cpp', cpp: 'cpp', cxx: 'cpp', hpp: 'cpp', hh: 'cpp', hxx: 'cpp',
  diff: 'diff', patch: 'diff',
  go: 'go',
  js: 'javascript', mjs: 'javascript', cjs: 'javascript', jsx: 'javascript',
  json: 'json',
  md: 'markdown', markdown: 'markdown',
  py: 'python',
  rs: 'rust',
  sql: 'sql',
  ts: 'typescript', tsx: 'typescript', mts: 'typescript', cts: 'typescript',
  yaml: 'yaml', yml: 'yaml',
};

/** The highlight.js language for a path (by its extension), or '' for none. */
export function languageFor(path: string): string {
  const name = path.split('/').pop() ?? '';
  const dot = name.lastIndexOf('.');
  return dot > 0 ? (BY_EXTENSION[name.slice(dot + 1).toLowerCase()] ?? '') : '';
}

const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', bmp: 'image/bmp', ico: 'image/x-icon',
};

/**
 * The image type of a path, by its extension, or null. SVG is left out on purpose: it can
 * carry script, and the raw route's bytes are shown only as inert pictures.
 */
export function imageTypeFor(path: string): string | null {
  const dot = path.lastIndexOf('.');
  return dot >= 0 ? (IMAGE_TYPES[path.slice(dot + 1).toLowerCase()] ?? null) : null;
}

/** The lines of a text, without the empty one after its final newline. */
export function textLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Highlighted HTML (highlight.js output: text and `<span ...>`/`</span>` only) cut into lines. */
export function splitHighlighted(html: string): string[] {
  const lines: string[] = [];
  const open: string[] = [];
  let line = '';
  for (const token of html.match(/<span[^>]*>|<\/span>|[^<]+|</g) ?? []) {
    if (token.startsWith('<span')) {
      open.push(token);
      line += token;
    } else if (token === '</span>') {
      open.pop();
      line += token;
    } else {
      const parts = token.split('\n');
      line += parts[0];
      for (const part of parts.slice(1)) {
        lines.push(line + '</span>'.repeat(open.length));
        line = open.join('') + part;
      }
    }
  }
  lines.push(line);
  if (lines.length > 1 && lines[lines.length - 1] === open.join('')) lines.pop();
  return lines;
}

/** Attachments larger than this are offered for download only, not shown as text. */
export const TEXT_PREVIEW_MAX_BYTES = 1024 * 1024;

/** How an attachment is previewed, and the type its bytes are shown as. */
export type Preview = { kind: 'image'; type: string } | { kind: 'text' } | { kind: 'pdf' } | null;

/**
 * An image inline (never SVG, which can carry script), text as code (up to 1 MiB), a PDF
 * as a link to open, or nothing (download only): by the stored type, then by the name.
 */
export function previewOf(contentType: string, name: string, size: number): Preview {
  const type = contentType.toLowerCase().split(';')[0].trim();
  if (type === 'application/pdf' || /\.pdf$/i.test(name)) return { kind: 'pdf' };
  const image = imageTypeFor(name) ?? (type.startsWith('image/') && type !== 'image/svg+xml' ? type : null);
  if (image) return { kind: 'image', type: image };
  if (size > TEXT_PREVIEW_MAX_BYTES) return null;
  if (type.startsWith('text/') || type === 'application/json' || languageFor(name) || /\.(txt|log|csv)$/i.test(name)) return { kind: 'text' };
  return null;
}
