// highlight.js core with the languages agents write most; the full bundle is far larger.
// Loaded by a dynamic import (useMarkdown) when a message first shows fenced code.

import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import c from 'highlight.js/lib/languages/c';
import cpp from 'highlight.js/lib/languages/cpp';
import diff from 'highlight.js/lib/languages/diff';
import go from 'highlight.js/lib/languages/go';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import markdown from 'highlight.js/lib/languages/markdown';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import shell from 'highlight.js/lib/languages/shell';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import yaml from 'highlight.js/lib/languages/yaml';

const languages = { bash, c, cpp, diff, go, javascript, json, markdown, python, rust, shell, sql, typescript, yaml };
for (const [name, lang] of Object.entries(languages)) hljs.registerLanguage(name, lang);

/** Highlighted HTML (escaped, with hljs-* spans), or '' when `lang` is not registered. */
export function highlight(code: string, lang: string): string {
  if (!hljs.getLanguage(lang)) return '';
  return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
}
