// The new-run form and a cloned repository's .agentry/: choosing the repository as the
// working directory shows its agents and says it is not trusted; a start that needs
// trust is refused with nothing run; trusting it from the prompt lets the same start
// through, and its notify command then runs. Every outcome is also checked on disk and
// through the API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { newPage, sharedDaemonAndBrowser, tid, until, writeFiles } from './harness.mjs';
import { standardConfig } from './fixtures.mjs';

const suite = sharedDaemonAndBrowser(standardConfig());

test('an untrusted project is shown, refused, and trusted from the form', async (t) => {
  const repo = path.join(suite.daemon.work, 'cloned');
  const marker = path.join(suite.daemon.work, 'notified');
  writeFiles(repo, {
    '.agentry/agents/theirs/agent.md': [
      '---',
      'schemaVersion: 1',
      'description: "the repository\'s own agent"',
      'backend: mock',
      'notify:',
      `  - command: [sh, -c, 'cat > ${marker}']`,
      '    events: [run.finished]',
      '---',
      'A project agent.',
      '',
    ].join('\n'),
  });

  const page = await newPage(t, suite.browser);
  await page.goto(suite.daemon.url('/'));
  await page.locator(tid('new-run')).click();
  const form = page.locator(`form${tid('new-run-form')}`);
  await form.waitFor();
  await form.locator('input[name=cwd]').fill(repo);

  // The prompt says the project is not trusted and what of it cannot be used: its agent
  // names a program, so it is not offered.
  const prompt = page.locator(tid('project-trust'));
  await prompt.waitFor({ state: 'visible' });
  const said = await prompt.textContent();
  assert.ok(said.includes(repo), said);
  assert.match(said, /agents\/theirs\/agent\.md: notify\[0\]\.command/);
  assert.match(said, /agentry trust/);
  const theirs = form.locator('select[name=agent] option', { hasText: /^theirs$/ });
  assert.equal(await theirs.count(), 0);

  // A start that names it anyway is refused, naming the field, and nothing runs.
  const refused = await suite.daemon.call('POST', '/api/runs', {
    agent: 'theirs', callerCwd: repo, definitionCwd: repo, overrides: { message: 'hello' },
  });
  assert.equal(refused.status, 422);
  assert.equal(refused.body.error.details.field, 'notify[0].command');
  assert.equal(refused.body.error.details.projectDir, repo);
  assert.deepEqual(await suite.daemon.runIds(), [], 'a refused start created a run');
  await sleep(200);
  assert.ok(!fs.existsSync(marker), 'the untrusted command ran');

  // Trusted from the prompt: the same start goes through and the command runs at the end.
  await page.locator(tid('trust-project')).click();
  await prompt.waitFor({ state: 'detached' });
  const status = await suite.daemon.api('GET', `/api/projects/trust?dir=${encodeURIComponent(repo)}`);
  assert.equal(status.project.trusted, true);
  await until(async () => (await theirs.count()) === 1, {
    what: "the trusted project's agent in the list",
  });
  await form.locator('select[name=agent]').selectOption('theirs');
  await form.locator('textarea[name=message]').fill('hello');
  await form.locator(tid('submit-start')).click();
  await page.waitForURL(/\/runs\/[^/?#]+$/);
  await until(() => fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').includes('run.finished'), {
    timeoutMs: 20_000,
    what: "the trusted project's notify command",
  });
});
