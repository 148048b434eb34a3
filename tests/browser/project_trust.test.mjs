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

  // The project's agent appears, and the prompt says the project is not trusted.
  const prompt = page.locator(tid('project-trust'));
  await prompt.waitFor({ state: 'visible' });
  assert.match(await prompt.textContent(), new RegExp(repo.replace(/[/.]/g, '\\$&')));
  await until(async () => (await form.locator('select[name=agent] option[value=theirs]').count()) === 1, {
    what: "the project's agent in the list",
  });
  await form.locator('select[name=agent]').selectOption('theirs');
  await form.locator('textarea[name=message]').fill('hello');

  // Refused: the error names the field and `agentry trust`, and nothing ran.
  await form.locator(tid('submit-start')).click();
  const error = page.locator(tid('form-error'));
  await error.waitFor({ state: 'visible' });
  const text = await error.textContent();
  assert.match(text, /notify\[0\]\.command/);
  assert.match(text, /agentry trust/);
  assert.deepEqual(await suite.daemon.runIds(), [], 'a refused start created a run');

  // Trusted from the prompt: the same start goes through and the command runs at the end.
  await page.locator(tid('trust-project')).click();
  await prompt.waitFor({ state: 'detached' });
  const status = await suite.daemon.api('GET', `/api/projects/trust?dir=${encodeURIComponent(repo)}`);
  assert.equal(status.project.trusted, true);
  await form.locator(tid('submit-start')).click();
  await page.waitForURL(/\/runs\/[^/?#]+$/);
  await until(() => fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').includes('run.finished'), {
    timeoutMs: 20_000,
    what: "the trusted project's notify command",
  });
  await sleep(0);
});
