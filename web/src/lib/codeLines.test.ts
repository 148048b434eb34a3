import { describe, expect, it } from 'vitest';
import { imageTypeFor, languageFor, previewOf, splitHighlighted, textLines } from './codeLines';

describe('languageFor and imageTypeFor', () => {
  it('go by the extension, case aside', () => {
    expect(languageFor('src/calc.TS')).toBe('typescript');
    expect(languageFor('host/main.cpp')).toBe('cpp');
    expect(languageFor('Makefile')).toBe('');
    expect(languageFor('.bashrc')).toBe('');
    expect(imageTypeFor('docs/logo.PNG')).toBe('image/png');
    expect(imageTypeFor('icon.svg')).toBeNull();
    expect(imageTypeFor('notes')).toBeNull();
  });
});

describe('splitHighlighted', () => {
  it('closes a span at a line break and opens it again on the next line', () => {
    const html = 'a <span class="c">/* one\ntwo */</span> b\n<span class="k">x</span>\n';
    expect(splitHighlighted(html)).toEqual(['a <span class="c">/* one</span>', '<span class="c">two */</span> b', '<span class="k">x</span>']);
  });

  it('keeps nested spans and empty lines, and as many lines as the text', () => {
    const html = '<span class="a"><span class="b">x\n\ny</span></span>';
    expect(splitHighlighted(html)).toEqual([
      '<span class="a"><span class="b">x</span></span>',
      '<span class="a"><span class="b"></span></span>',
      '<span class="a"><span class="b">y</span></span>',
    ]);
    expect(textLines('x\n\ny\n')).toHaveLength(3);
    expect(textLines('')).toEqual(['']);
  });
});

describe('previewOf', () => {
  it('shows images inline (not SVG), text up to 1 MiB, PDFs as a link, the rest not at all', () => {
    expect(previewOf('image/png', 'shot.png', 10)).toEqual({ kind: 'image', type: 'image/png' });
    expect(previewOf('application/octet-stream', 'shot.JPG', 10)).toEqual({ kind: 'image', type: 'image/jpeg' });
    expect(previewOf('image/svg+xml', 'logo.svg', 10)).toBeNull();
    expect(previewOf('text/plain; charset=utf-8', 'notes', 10)).toEqual({ kind: 'text' });
    expect(previewOf('application/octet-stream', 'main.rs', 10)).toEqual({ kind: 'text' });
    expect(previewOf('text/plain', 'huge.log', 2 * 1024 * 1024)).toBeNull();
    expect(previewOf('application/pdf', 'spec', 10)).toEqual({ kind: 'pdf' });
    expect(previewOf('application/octet-stream', 'Spec.PDF', 10)).toEqual({ kind: 'pdf' });
    expect(previewOf('application/zip', 'a.zip', 10)).toBeNull();
  });
});
