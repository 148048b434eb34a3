// Fails when the JavaScript of the first load (the entry script of dist/index.html and
// the chunks it preloads or imports statically) is over 120 KB gzipped.
import { readFileSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { join, dirname, resolve, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const LIMIT = 120 * 1000; // 120 KB
const dist = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const indexPath = join(dist, 'index.html');
if (!existsSync(indexPath)) {
  console.error('budget: dist/index.html is missing; run npm run build first');
  process.exit(2);
}
const html = readFileSync(indexPath, 'utf8');
const refs = new Set();
for (const m of html.matchAll(/<script[^>]*\bsrc="([^"]+\.js)"/g)) refs.add(m[1]);
for (const m of html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+\.js)"/g)) refs.add(m[1]);
const norm = (r) => posix.normalize(r.replace(/^\.\//, '').replace(/^\//, ''));
const queue = [...refs].map(norm);
const seen = new Set();
let total = 0;
while (queue.length) {
  const rel = queue.shift();
  if (seen.has(rel)) continue;
  seen.add(rel);
  const file = join(dist, rel);
  if (!existsSync(file)) {
    console.error(`budget: ${rel} is referenced but missing`);
    process.exit(2);
  }
  const code = readFileSync(file);
  const gz = gzipSync(code, { level: 9 }).length;
  total += gz;
  console.log(`${rel}\t${code.length} B\t${gz} B gzipped`);
  // Static imports of other chunks load with the entry too; dynamic import() does not.
  for (const m of code.toString('utf8').matchAll(/(?:^|[;\n}])\s*import\s*(?:[\w$*{}\s,]+from\s*)?["'](\.{1,2}\/[^"']+\.js)["']/g)) {
    queue.push(posix.normalize(posix.join(posix.dirname(rel), m[1])));
  }
}
console.log(`initial load: ${total} B gzipped (limit ${LIMIT} B)`);
if (total > LIMIT) {
  console.error('budget: over the limit');
  process.exit(1);
}
