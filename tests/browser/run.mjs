// Runs one browser test file under `node --test`, or skips it (exit 77, ctest's
// SKIP_RETURN_CODE) when this machine lacks a prerequisite: playwright-core in
// tests/browser/node_modules, a Chromium, or the built dashboard (web/dist/index.html).
// With --api (tests of the HTTP API alone, such as openapi.test.mjs) neither Chromium
// nor web/dist is needed.
// Usage: node tests/browser/run.mjs [--api] <file.test.mjs>
import { spawn } from 'node:child_process';
import path from 'node:path';
import { missingPrerequisites, HERE } from './harness.mjs';

const args = process.argv.slice(2);
const api = args[0] === '--api';
const file = api ? args[1] : args[0];
if (!file) {
  console.error('usage: node run.mjs [--api] <file.test.mjs>');
  process.exit(2);
}

const missing = missingPrerequisites({ browser: !api });
if (missing) {
  const bar = '*'.repeat(78);
  console.log(`${bar}\n* SKIPPED: the ${api ? 'API' : "dashboard's browser"} test ${path.basename(file)} cannot run here:`);
  for (const why of missing) console.log(`*   - ${why}`);
  console.log(`* (make test runs npm ci in tests/browser and builds web/dist first)\n${bar}`);
  process.exit(77);
}

const child = spawn(process.execPath, ['--test', '--test-reporter=spec', path.resolve(HERE, file)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
