import { afterEach, describe, expect, it } from 'vitest';
import { highlight } from './highlight';
import { hasFencedCode, isSafeUrl, renderMarkdown, setHighlighter } from './markdown';

afterEach(() => setHighlighter(null));

describe('renderMarkdown structure', () => {
  it('renders headings, lists, emphasis and strikethrough', () => {
    const html = renderMarkdown('# Title\n## Sub\n\n- one\n- **two**\n\n1. first\n\n~~gone~~');
    expect(html).toContain('<h1>Title</h1>');
    expect(html).toContain('<h2>Sub</h2>');
    expect(html).toContain('<ul>\n<li>one</li>\n<li><strong>two</strong></li>\n</ul>');
    expect(html).toContain('<ol>\n<li>first</li>\n</ol>');
    expect(html).toContain('<s>gone</s>');
  });

  it('renders a GFM table', () => {
    const html = renderMarkdown('| a | b |\n|---|--:|\n| 1 | 2 |');
    expect(html).toMatch(/^<table>\n<thead>\n<tr>\n<th>a<\/th>\n<th style="text-align:right">b<\/th>/);
    expect(html).toContain('<td>1</td>');
  });

  it('a plain one-paragraph text reads exactly as itself', () => {
    expect(renderMarkdown('Building dark mode: size large. All done.')).toBe('<p>Building dark mode: size large. All done.</p>');
  });

  it('keeps single newlines as line breaks', () => {
    expect(renderMarkdown('a\nb')).toBe('<p>a<br>\nb</p>');
  });
});

describe('renderMarkdown code blocks', () => {
  it('wraps a fenced block with a copy button, escaped, without a highlighter', () => {
    const html = renderMarkdown('```ts\nconst a = 1 < 2;\n```');
    expect(html).toBe(
      '<div class="md-code"><button type="button" class="md-copy" data-testid="copy-code" title="Copy code" aria-label="Copy code"></button>' +
        '<pre><code class="language-ts">const a = 1 &lt; 2;\n</code></pre>\n</div>',
    );
  });

  it('highlights a known language once the highlighter is set', () => {
    setHighlighter(highlight);
    const html = renderMarkdown('```ts\nconst a: string = "x"; // hi\n```');
    expect(html).toContain('<span class="hljs-keyword">const</span>');
    expect(html).toContain('<span class="hljs-string">&quot;x&quot;</span>');
    expect(html).toContain('<span class="hljs-comment">// hi</span>');
  });

  it('leaves an unknown language escaped and a highlighted block still escapes HTML', () => {
    setHighlighter(highlight);
    expect(renderMarkdown('```klingon\n<b>x</b>\n```')).toContain('<code class="language-klingon">&lt;b&gt;x&lt;/b&gt;\n</code>');
    expect(renderMarkdown('```bash\necho "<script>"\n```')).not.toContain('<script>');
  });

  it('registers only the chosen languages', () => {
    for (const lang of ['bash', 'sh', 'shell', 'json', 'js', 'typescript', 'ts', 'python', 'py', 'diff', 'yaml', 'yml', 'c', 'cpp', 'go', 'rust', 'rs', 'sql', 'markdown', 'md'])
      expect(highlight('x', lang), lang).not.toBe('');
    expect(highlight('x', 'haskell')).toBe('');
  });

  it('hasFencedCode finds fences only', () => {
    expect(hasFencedCode('text\n```\ncode\n```')).toBe(true);
    expect(hasFencedCode('~~~py\nx\n~~~')).toBe(true);
    expect(hasFencedCode('inline `code` only')).toBe(false);
  });
});

describe('renderMarkdown safety', () => {
  it('shows raw HTML as text', () => {
    const html = renderMarkdown('<script>alert(1)</script>\n\nhi <img src=x onerror="alert(2)"> <b>bold</b>');
    expect(html).not.toMatch(/<script|<img|<b>/);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(2)&quot;&gt;');
  });

  it('gives safe links target and rel', () => {
    const html = renderMarkdown('[docs](https://example.com/a) and [here](./rel) and [mail](mailto:a@b.c)');
    expect(html).toContain('<a href="https://example.com/a" target="_blank" rel="noopener noreferrer nofollow">docs</a>');
    expect(html).toContain('<a href="./rel" target="_blank" rel="noopener noreferrer nofollow">here</a>');
    expect(html).toContain('<a href="mailto:a@b.c" target="_blank" rel="noopener noreferrer nofollow">mail</a>');
  });

  it('linkifies bare URLs with the same attributes', () => {
    expect(renderMarkdown('see https://example.org now')).toBe(
      '<p>see <a href="https://example.org" target="_blank" rel="noopener noreferrer nofollow">https://example.org</a> now</p>',
    );
  });

  it('makes javascript:, vbscript:, data: and file: links plain text', () => {
    for (const src of [
      '[x](javascript:alert(1))',
      '[x](JaVaScRiPt:alert(1))',
      '[x](javascript&colon;alert(1))',
      '[x](&#106;avascript:alert(1))',
      '[x](vbscript:msgbox(1))',
      '[x](data:text/html;base64,PHNjcmlwdD4=)',
      '[x](file:///etc/passwd)',
      '<javascript:alert(1)>',
    ]) {
      const html = renderMarkdown(src);
      expect(html, src).not.toContain('<a');
    }
  });

  it('renders an image as a link to it, never an <img>', () => {
    const html = renderMarkdown('![a <cat>](https://example.com/cat.png) ![x](javascript:alert(1))');
    expect(html).not.toContain('<img');
    expect(html).toContain('<a href="https://example.com/cat.png" target="_blank" rel="noopener noreferrer nofollow" class="md-image">[image: a &lt;cat&gt;]</a>');
    expect(html.match(/<a /g)?.length).toBe(1);
  });

  it('isSafeUrl allows relative and http(s)/mailto only', () => {
    expect(isSafeUrl('/a/b')).toBe(true);
    expect(isSafeUrl('#x')).toBe(true);
    expect(isSafeUrl('HTTPS://x')).toBe(true);
    expect(isSafeUrl(' javascript:x')).toBe(false);
    expect(isSafeUrl('ftp://x')).toBe(false);
  });
});
