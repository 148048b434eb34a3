// The browser tests' harness: a real `agentry serve` on an ephemeral loopback port with
// its own home and config directories (as tests/support/daemon_process.cpp starts it),
// small API helpers, and a Chromium (Debian's, never a downloaded one) driven by
// playwright-core.
//
// Environment:
//   AGENTRY_BIN              the agentry binary under test (ctest sets it)
//   AGENTRY_WEB_DIST         the dashboard's build output (web/dist); served as AGENTRY_WEB_DIR
//   AGENTRY_CHROMIUM         the Chromium to drive (default /usr/bin/chromium)
//   AGENTRY_SCREENSHOTS_DIR  where screenshots go (default $TMPDIR/agentry-screenshots-<uid>)
//   AGENTRY_BROWSER_HEADED=1 show the browser (local debugging)
//   AGENTRY_BROWSER_KEEP=1   keep each daemon's directory (home, config, logs), printed

import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { before, after } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const SOURCE_DIR = path.resolve(HERE, '..', '..');

export const CHROMIUM = process.env.AGENTRY_CHROMIUM || '/usr/bin/chromium';
export const WEB_DIST = process.env.AGENTRY_WEB_DIST || path.join(SOURCE_DIR, 'web', 'dist');

/// Why the suite cannot run here, or null. A missing prerequisite is a skip (exit 77 in
/// run.mjs), never a pass: each is named so the skip is visible in ctest's output.
/// `browser: false` (the API tests, run.mjs --api): no Chromium or dashboard needed,
/// but the validator's packages are.
export function missingPrerequisites({ browser = true } = {}) {
  const missing = [];
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 20) missing.push(`node ${process.versions.node} is too old (need 20 or later for node:test)`);
  for (const pkg of browser ? ['playwright-core'] : ['ajv', 'ajv-formats', 'yaml']) {
    if (!fs.existsSync(path.join(HERE, 'node_modules', pkg, 'package.json'))) {
      missing.push(`${path.join(HERE, 'node_modules')} has no ${pkg}: run \`npm ci\` in tests/browser`);
    }
  }
  if (!browser) return missing.length ? missing : null;
  if (!isExecutable(CHROMIUM)) missing.push(`no Chromium at ${CHROMIUM} (install chromium or set AGENTRY_CHROMIUM)`);
  if (!fs.existsSync(path.join(WEB_DIST, 'index.html'))) {
    missing.push(`${path.join(WEB_DIST, 'index.html')} does not exist: build the dashboard (cd web && npm ci && npm run build)`);
  }
  return missing.length ? missing : null;
}

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function agentryBin() {
  const bin = process.env.AGENTRY_BIN;
  if (!bin) {
    throw new Error('AGENTRY_BIN is not set: it must name the agentry binary under test (ctest sets it; ' +
      'by hand e.g. AGENTRY_BIN=$PWD/build/debug/bin/agentry)');
  }
  if (!isExecutable(bin)) throw new Error(`AGENTRY_BIN=${bin} is not an executable file (build the agentry target first)`);
  return bin;
}

// ---------------------------------------------------------------------------------------
// Temp directories, removed at exit even when a test failed or threw.

const cleanups = new Set();
let exitHooked = false;
function atExit(fn) {
  cleanups.add(fn);
  if (!exitHooked) {
    exitHooked = true;
    process.on('exit', () => {
      for (const f of [...cleanups]) {
        try { f(); } catch { /* best effort at exit */ }
      }
    });
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
      process.once(signal, () => process.exit(128 + os.constants.signals[signal]));
    }
  }
  return () => cleanups.delete(fn);
}

export function makeTempDir(prefix = 'agentry-browser-') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  const forget = atExit(() => fs.rmSync(dir, { recursive: true, force: true }));
  return {
    path: dir,
    remove() {
      forget();
      fs.rmSync(dir, { recursive: true, force: true });
    },
    keep() {
      forget();
    },
  };
}

/// `dir` (made if missing) in makeTempDir's shape, but never removed.
function keptDir(dir) {
  fs.mkdirSync(dir, { recursive: true });
  return { path: dir, remove() {}, keep() {} };
}

/// Writes `files` ({ relative path: text }) under `root`.
export function writeFiles(root, files) {
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
}

/// agents/<name>/agent.md for the mock backend. `steps`: backendConfig.mock.steps (JSON);
/// without steps the run's message lines `@mock {...}` script it.
export function mockAgent({ name, steps, unrestricted, description = '', extra = '' }) {
  const lines = ['---', 'schemaVersion: 1', `description: ${JSON.stringify(description)}`, 'backend: mock', 'model: mock-1'];
  if (unrestricted !== undefined) lines.push(`unrestricted: ${unrestricted}`);
  if (steps) lines.push('backendConfig:', `  mock: ${JSON.stringify({ steps })}`);
  if (extra) lines.push(extra.trimEnd());
  lines.push('---', `You are the ${name} agent of the dashboard tests.`, '');
  return { [`agents/${name}/agent.md`]: lines.join('\n') };
}

// ---------------------------------------------------------------------------------------
// The daemon.

export class Daemon {
  /// Starts `agentry serve --listen ws://127.0.0.1:0/` with a fresh AGENTRY_HOME and
  /// AGENTRY_CONFIG_DIR holding `config` ({ relative path: text }), the dashboard from
  /// AGENTRY_WEB_DIST, and `env` added. `token`: the bearer token the API helpers send.
  /// `dir`: home, config and work in this directory instead of a fresh temp one, kept when
  /// the daemon stops (a store another test made, or makes for another test).
  static async start({ config = {}, env = {}, token = null, basePath = '', name = 'daemon', dir = null } = {}) {
    const daemon = new Daemon();
    daemon.name = name;
    daemon.tmp = dir ? keptDir(dir) : makeTempDir();
    daemon.home = path.join(daemon.tmp.path, 'home');
    daemon.configDir = path.join(daemon.tmp.path, 'config');
    daemon.work = path.join(daemon.tmp.path, 'work');
    for (const dir of [daemon.home, daemon.configDir, daemon.work]) fs.mkdirSync(dir, { recursive: true });
    writeFiles(daemon.configDir, config);
    daemon.token = token;
    daemon.basePath = basePath;
    try {
      await daemon.#spawn(env);
    } catch (error) {
      await daemon.stop();
      throw error;
    }
    return daemon;
  }

  /// Stops the daemon (SIGTERM) and starts it again on the same port, home and config.
  /// `whileDown` runs in between.
  async restart({ whileDown } = {}) {
    await this.#terminate();
    this.forgetKill?.();
    if (whileDown) await whileDown();
    await this.#spawn(this.env, this.port);
  }

  async #terminate() {
    if (!this.child || this.exited) return;
    try { process.kill(-this.child.pid, 'SIGTERM'); } catch { /* gone */ }
    // The timers are unref'd: a pending one would keep node (and the test file) alive
    // for its whole length after the daemon has long exited.
    const done = await Promise.race([this.exitPromise, sleep(10_000, null, { ref: false })]);
    if (!done) {
      try { process.kill(-this.child.pid, 'SIGKILL'); } catch { /* gone */ }
      await Promise.race([this.exitPromise, sleep(5000, null, { ref: false })]);
    }
  }

  async #spawn(extraEnv, port = 0) {
    this.env = extraEnv;
    const bin = agentryBin();
    // The caller's AGENTRY_* settings (a token, a base path, a listen address) are not
    // the test's: the daemon gets only what the test says.
    const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('AGENTRY_')));
    const childEnv = {
      ...inherited,
      AGENTRY_HOME: this.home,
      AGENTRY_CONFIG_DIR: this.configDir,
      AGENTRY_WEB_DIR: WEB_DIST,
      ...extraEnv,
    };
    for (const key of Object.keys(childEnv)) if (childEnv[key] === undefined) delete childEnv[key];
    this.stdoutPath = path.join(this.tmp.path, 'stdout.log');
    this.stderrPath = path.join(this.tmp.path, 'stderr.log');
    // A restart appends to the same log: its port line is the one after this offset.
    const offset = fs.existsSync(this.stdoutPath) ? fs.statSync(this.stdoutPath).size : 0;
    const out = fs.openSync(this.stdoutPath, 'a');
    const err = fs.openSync(this.stderrPath, 'a');
    // setpriv --pdeathsig: the daemon dies with this process even when it is SIGKILLed
    // (a ctest timeout), as the C++ tests' die_with_parent does.
    const argv = [bin, 'serve', '--listen', `ws://127.0.0.1:${port}/`];
    const [cmd, args] = fs.existsSync('/usr/bin/setpriv')
      ? ['/usr/bin/setpriv', ['--pdeathsig', 'KILL', '--', ...argv]]
      : [argv[0], argv.slice(1)];
    this.child = spawn(cmd, args, { env: childEnv, stdio: ['ignore', out, err], detached: true, cwd: this.work });
    fs.closeSync(out);
    fs.closeSync(err);
    this.exited = null;
    this.exitPromise = new Promise((resolve) => this.child.once('exit', (code, signal) => {
      this.exited = { code, signal };
      resolve(this.exited);
    }));
    const pid = this.child.pid;
    // Its process group: the daemon and whatever it started (agents, hooks).
    this.forgetKill = atExit(() => { try { process.kill(-pid, 'SIGKILL'); } catch { /* gone */ } });

    const deadline = Date.now() + 30_000;
    for (;;) {
      const text = fs.readFileSync(this.stdoutPath).subarray(offset).toString('utf8');
      const match = /^http api on http:\/\/127\.0\.0\.1:(\d+)\//m.exec(text);
      if (match) {
        this.port = Number(match[1]);
        break;
      }
      if (this.exited) {
        throw new Error(`agentry serve exited (${JSON.stringify(this.exited)}) before announcing its HTTP port; ${this.describeOutput()}`);
      }
      if (Date.now() > deadline) {
        throw new Error(`agentry serve did not print "http api on http://127.0.0.1:<port>/api/" within 30 s; ${this.describeOutput()}`);
      }
      await sleep(10);
    }
    this.origin = `http://127.0.0.1:${this.port}`;
    this.baseUrl = `${this.origin}${this.basePath}`;
  }

  describeOutput() {
    const tail = (file, n) => {
      try {
        const t = fs.readFileSync(file, 'utf8');
        return t.length > n ? '...' + t.slice(-n) : t;
      } catch {
        return '';
      }
    };
    return `stderr:\n${tail(this.stderrPath, 4000)}\nstdout:\n${tail(this.stdoutPath, 2000)}`;
  }

  /// The dashboard URL of `route` ("/", "/runs/<id>"), under the base path.
  url(route = '/') {
    return this.baseUrl + route;
  }

  /// Kills the daemon's process group and removes its directories.
  async stop() {
    await this.#terminate();
    if (this.child) {
      // Anything it left in its group.
      try { process.kill(-this.child.pid, 'SIGKILL'); } catch { /* gone */ }
    }
    this.forgetKill?.();
    if (process.env.AGENTRY_BROWSER_KEEP === '1') {
      console.log(`kept the ${this.name}'s directory (home, config, stdout.log, stderr.log): ${this.tmp?.path}`);
      this.tmp?.keep();
    } else {
      this.tmp?.remove();
    }
  }

  // ----- API helpers ---------------------------------------------------------------------

  /// One API call: `{ status, body }` (body parsed when JSON). Never throws on a status.
  async call(method, route, body, { token = this.token } = {}) {
    const headers = {};
    if (token) headers.authorization = `Bearer ${token}`;
    const init = { method, headers };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const response = await fetch(this.baseUrl + route, init);
    const text = await response.text();
    let parsed = text;
    try { parsed = JSON.parse(text); } catch { /* not JSON */ }
    return { status: response.status, body: parsed };
  }

  /// An API call that must answer `expect` (default 2xx): its JSON body.
  async api(method, route, body, { expect } = {}) {
    const { status, body: answer } = await this.call(method, route, body);
    const ok = expect === undefined ? status >= 200 && status < 300 : status === expect;
    if (!ok) throw new Error(`${method} ${route} answered ${status}: ${JSON.stringify(answer)}`);
    return answer;
  }

  /// POST /api/runs (start) or /api/runs/init: the run id.
  async createRun({ agent, message, assignment, vars, start = true, cwd = this.work, name, overrides = {} }) {
    const body = { agent, callerCwd: cwd, overrides: { ...overrides } };
    if (message !== undefined) body.overrides.message = message;
    if (assignment) body.assignment = assignment;
    if (vars) body.webVars = vars;
    if (name) body.name = name;
    const answer = await this.api('POST', start ? '/api/runs' : '/api/runs/init', body, { expect: 201 });
    return answer.run.runId;
  }

  async run(runId) {
    return (await this.api('GET', `/api/runs/${runId}`)).run;
  }

  /// Polls the run until `predicate(run)` holds; the run.
  async waitForRun(runId, predicate, { timeoutMs = 30_000, what = 'the condition' } = {}) {
    const deadline = Date.now() + timeoutMs;
    let run;
    for (;;) {
      run = await this.run(runId);
      if (predicate(run)) return run;
      if (Date.now() > deadline) {
        throw new Error(`run ${runId} did not reach ${what} within ${timeoutMs} ms (status ${run.status}, reason ${JSON.stringify(run.statusReason)})`);
      }
      await sleep(50);
    }
  }

  /// Waits until the run's status is `status` (a string or a list of them).
  waitForStatus(runId, status, options = {}) {
    const wanted = [].concat(status);
    return this.waitForRun(runId, (r) => wanted.includes(r.status), { what: `status ${wanted.join('|')}`, ...options });
  }

  /// Every durable timeline event of the run, from the history route.
  async timeline(runId) {
    const events = [];
    let after = 0;
    for (;;) {
      const page = await this.api('GET', `/api/runs/${runId}/timeline?limit=5000&after=${after}`);
      events.push(...page.events);
      if (page.events.length === 0) return events;
      after = page.lastCursor;
    }
  }

  async audit(runId) {
    const events = [];
    let after = 0;
    for (;;) {
      const page = await this.api('GET', `/api/runs/${runId}/audit?limit=5000&after=${after}`);
      events.push(...page.events);
      if (page.events.length === 0) return events;
      after = page.lastCursor;
    }
  }

  async runIds({ includeArchived = true } = {}) {
    const answer = await this.api('GET', `/api/runs?global=true&limit=500&includeArchived=${includeArchived}`);
    return answer.runs.map((r) => r.runId);
  }
}

// ---------------------------------------------------------------------------------------
// The browser.

export async function launchBrowser() {
  const { chromium } = await import('playwright-core');
  const headed = process.env.AGENTRY_BROWSER_HEADED === '1';
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: !headed,
    // Root in a container has no user namespaces for the sandbox; the pages are our own.
    // Fewer processes, as each one Chromium starts costs CPU: the GPU and network work in
    // the browser's own process, and no spare renderer kept waiting (browser.routing
    // 23.6 -> 20.8 CPU-s; all the browser tests 371 -> 359).
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu', '--no-first-run', '--no-default-browser-check',
      '--in-process-gpu', '--enable-features=NetworkServiceInProcess', '--disable-features=SpareRendererForSitePerProcess'],
  });
}

/// One daemon (with `config`) and one browser for a whole test file, started before its
/// tests and stopped after them. Read them as `suite.daemon` and `suite.browser`.
/// `options`: more of Daemon.start's (`dir`).
export function sharedDaemonAndBrowser(config, options = {}) {
  const suite = { daemon: null, browser: null };
  before(async () => {
    [suite.daemon, suite.browser] = await Promise.all([Daemon.start({ ...options, config }), launchBrowser()]);
  });
  after(async () => {
    await suite.browser?.close();
    await suite.daemon?.stop();
  });
  return suite;
}

/// A fresh browser context and page for one test, closed when the test ends. Page
/// errors and failed requests are collected in `page.problems` for the failure message.
export async function newPage(t, browser, { viewport = { width: 1280, height: 800 }, colorScheme = 'light', ...options } = {}) {
  const context = await browser.newContext({ viewport, colorScheme, ...options });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  page.problems = [];
  page.on('pageerror', (e) => page.problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') page.problems.push(`console error: ${m.text()}`); });
  page.on('response', (r) => { if (r.status() >= 400) page.problems.push(`HTTP ${r.status()} for ${r.request().method()} ${r.url()}`); });
  page.on('requestfailed', (r) => {
    const why = r.failure()?.errorText ?? '';
    if (!why.includes('ERR_ABORTED')) page.problems.push(`request failed: ${r.method()} ${r.url()}: ${why}`);
  });
  t.after(() => context.close().catch(() => {}));
  return page;
}

/// `[data-testid=<id>]`, optionally with more attribute selectors appended.
export const tid = (id, more = '') => `[data-testid="${id}"]${more}`;

export function screenshotsDir() {
  if (process.env.AGENTRY_SCREENSHOTS_DIR) {
    fs.mkdirSync(process.env.AGENTRY_SCREENSHOTS_DIR, { recursive: true });
    return process.env.AGENTRY_SCREENSHOTS_DIR;
  }
  // Kept after the run so they can be looked at (the test prints the path); one fixed
  // directory, overwritten by the next run, so runs do not pile up.
  const dir = path.join(os.tmpdir(), `agentry-screenshots-${os.userInfo().uid}`);
  fs.mkdirSync(dir, { recursive: true });
  return dir;
}

/// Polls `fn` until it returns a truthy value (returned) or `timeoutMs` passes (throws
/// naming `what`, with the last value seen).
export async function until(fn, { timeoutMs = 15_000, intervalMs = 50, what = 'the condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await fn();
    if (last) return last;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} (last: ${JSON.stringify(last)})`);
    await sleep(intervalMs);
  }
}

/// A git repository with one commit, for the diff view.
export function makeGitRepo(dir, files) {
  fs.mkdirSync(dir, { recursive: true });
  const git = (...args) => execFileSync('git', args, {
    cwd: dir,
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'tests@agentry.invalid');
  git('config', 'user.name', 'agentry tests');
  writeFiles(dir, files);
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  return dir;
}

export function hasProgram(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}
