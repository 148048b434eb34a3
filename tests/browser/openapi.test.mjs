// docs/openapi.yaml against the real daemon: a real `agentry serve` with the mock backend,
// the data every route needs (runs in a git repository, tasks, a schedule, attachments,
// queued messages, an approval, live frames, a trigger, a project), then a request to
// every operation of the document, its answers (successes and errors: a 400 and a 404 of
// each kind of route at least) validated against the document with ajv. It fails when an
// operation of the document was not exercised, and when a route the router declares is
// missing from the document (or the document has one the router does not).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import path from 'node:path';
import { Daemon, makeGitRepo, mockAgent, until, writeFiles } from './harness.mjs';
import { mock, standardConfig } from './fixtures.mjs';
import { Contract, declaredRoutes } from './openapi_contract.mjs';
import { CheckedClient } from './openapi_client.mjs';

const SECRET = 'openapi-trigger-secret';
const MISSING = 'zzzzzzzzzz'; // a well-formed run id no run has

function config() {
  return {
    ...standardConfig(),
    'launchers/niced.yaml': 'schemaVersion: 1\ndescription: lower priority\ncommand: [nice, -n, "10"]\n',
    'environments/sandbox.yaml': 'schemaVersion: 1\ndescription: a sandbox\nkind: bubblewrap\nnetwork: none\n',
    'tasks/review/check.md': '---\nschemaVersion: 1\ntitle: Check the work\n---\nLook it over.\n',
  };
}

let daemon;
let c;
const contract = new Contract();

before(async () => {
  daemon = await Daemon.start({ config: config(), env: { OPENAPI_TRIGGER_SECRET: SECRET }, name: 'openapi' });
  c = new CheckedClient(daemon, contract);
});
after(async () => {
  c?.flush();
  await daemon?.stop();
});

const enc = encodeURIComponent;
const runOf = (answer) => answer.body?.run?.runId;

test('the document describes every route the router declares, and no other', () => {
  const declared = declaredRoutes();
  const documented = contract.documentedRoutes();
  assert.deepEqual([...declared].filter((r) => !documented.has(r)).sort(), [], 'routes the daemon serves that docs/openapi.yaml lacks');
  assert.deepEqual([...documented].filter((r) => !declared.has(r)).sort(), [], 'routes docs/openapi.yaml has that the daemon does not serve');
});

test('every operation answers as the document says', async () => {
  const repo = makeGitRepo(path.join(daemon.work, 'repo'), {
    'README.md': '# repo\n',
    'src/main.c': 'int main(void) { return 0; }\n',
    ...Object.fromEntries(Object.entries(mockAgent({ name: 'local' })).map(([k, v]) => [`.agentry/${k}`, v])),
  });

  // Triggers are read at each delivery; this one's cwd is the repository.
  writeFiles(daemon.configDir, {
    'triggers/hook.yaml': [
      'schemaVersion: 1', 'description: starts the feature assignment', 'assignment: feature', 'agent: mock',
      `cwd: ${repo}`, 'secretEnv: OPENAPI_TRIGGER_SECRET', 'vars:', '  feature: /feature', 'dedupKey: "{{/id}}"', '',
    ].join('\n'),
    'triggers/filtered.yaml': [
      'schemaVersion: 1', 'assignment: feature', 'agent: mock', `cwd: ${repo}`, 'secretEnv: OPENAPI_TRIGGER_SECRET',
      'vars:', '  feature: /feature', 'filter:', '  /action: [opened]', '',
    ].join('\n'),
  });

  // ----- the daemon, its members, backends, usage, public routes
  await c.get('/app-config.json');
  await c.get('/metrics');
  const served = await c.get('/api/openapi.json');
  if (!isDeepStrictEqual(served.body, contract.doc)) c.problems.push('GET /api/openapi.json is not docs/openapi.yaml (was the daemon built from this document?)');
  await c.get('/api/openapi.json?x=1', { expect: 400 });
  await c.get('/api/daemon');
  await c.get('/api/daemons');
  await c.get('/api/backends');
  await c.get('/api/usage?by=agent');
  await c.get('/api/usage?by=nothing', { expect: 400 });
  const unknown = await fetch(`${daemon.baseUrl}/api/nothing-here`);
  assert.equal(unknown.status, 404);
  c.problems.push(...contract.checkSchema('Error', await unknown.json(), 'GET /api/nothing-here'));

  // ----- an initialized run with tasks: tasks, edits, dependencies, schedule
  const tasked = runOf(await c.post('/api/runs/init', { agent: 'mock', assignment: 'tasked', callerCwd: repo, name: 'tasked' }, { expect: 201 }));
  await c.post('/api/runs/init', { callerCwd: repo }, { expect: 400 });
  await c.post('/api/runs/init', { agent: 'nobody', callerCwd: repo }, { expect: 404 });
  await c.post('/api/runs/init', { runId: tasked, agent: 'mock', assignment: 'tasked', callerCwd: repo });
  await c.get(`/api/runs/${tasked}`);
  await c.get(`/api/runs/${MISSING}`, { expect: 404 });
  await c.get('/api/runs/not%20an%20id', { expect: 400 });
  await c.get(`/api/runs/${tasked}/brief`);
  await c.get(`/api/runs/${tasked}/tasks`);
  await c.get(`/api/runs/${MISSING}/tasks`, { expect: 404 });
  await c.get(`/api/runs/${tasked}/tasks/plan`);
  await c.get(`/api/runs/${tasked}/tasks/nothing`, { expect: 404 });
  await c.post(`/api/runs/${tasked}/tasks`, { id: 'extra', title: 'An extra task' }, { expect: 201 });
  await c.post(`/api/runs/${tasked}/tasks`, { title: 7 }, { expect: 400 });
  await c.call('PATCH', `/api/runs/${tasked}/tasks/extra`, { body: { title: 'The extra task' } });
  await c.call('PATCH', `/api/runs/${tasked}/tasks/extra`, { body: { status: 'sideways' }, expect: 400 });
  await c.post(`/api/runs/${tasked}/tasks/extra/append-notes`, { text: 'a note' });
  await c.post(`/api/runs/${tasked}/tasks/nothing/append-notes`, { text: 'a note' }, { expect: 404 });
  await c.call('DELETE', `/api/runs/${tasked}/tasks/extra`);
  await c.call('DELETE', `/api/runs/${tasked}/tasks/extra`, { expect: 404 });
  await c.post(`/api/runs/${tasked}/reconfigure`, { message: 'Plan, then build, carefully.' });
  await c.post(`/api/runs/${tasked}/reconfigure`, { message: null }, { expect: 400 });
  await c.post(`/api/runs/${tasked}/name`, { name: 'renamed' });
  await c.post(`/api/runs/${tasked}/name`, { name: 5 }, { expect: 400 });
  await c.post(`/api/runs/${tasked}/note`, { note: 'a note' });
  await c.post(`/api/runs/${tasked}/pinned`, { pinned: true });
  await c.post(`/api/runs/${MISSING}/pinned`, { pinned: true }, { expect: 404 });
  await c.post(`/api/runs/${tasked}/group`, { runGroupId: 'wave' });
  await c.post(`/api/runs/${tasked}/group/clear`, {});
  await c.post(`/api/runs/${tasked}/dependencies`, { type: 'group', groupId: 'wave' });
  await c.post(`/api/runs/${tasked}/dependencies`, { type: 'group', groupId: 'wave' }, { expect: 422 });
  await c.post(`/api/runs/${tasked}/dependencies`, { type: 'planet' }, { expect: 400 });
  await c.call('DELETE', `/api/runs/${tasked}/dependencies`, { body: { type: 'group', groupId: 'wave' } });
  await c.call('DELETE', `/api/runs/${tasked}/dependencies`, { body: { type: 'group', groupId: 'wave' }, expect: 404 });
  await c.post(`/api/runs/${tasked}/dependencies`, { dependency: { type: 'run', runId: MISSING } });
  await c.post(`/api/runs/${tasked}/dependencies/clear`, {});
  await c.call('PUT', `/api/runs/${tasked}/schedule`, { body: { cron: '0 9 * * MON-FRI', timezone: 'Europe/Berlin', mode: 'reuse' } });
  await c.call('PUT', `/api/runs/${tasked}/schedule`, { body: { delay: '1h' } });
  await c.call('PUT', `/api/runs/${tasked}/schedule`, { body: { delay: 'soon' }, expect: 400 });
  await c.post(`/api/runs/${tasked}/schedule/disable`, {});
  await c.post(`/api/runs/${tasked}/schedule/enable`, {});
  await c.call('DELETE', `/api/runs/${tasked}/schedule`);
  await c.call('DELETE', `/api/runs/${tasked}/schedule`, { expect: 422 });
  await c.post(`/api/runs/${MISSING}/schedule/enable`, {}, { expect: 404 });
  await c.post(`/api/runs/${tasked}/ready`, {});
  await c.post(`/api/runs/${tasked}/ready`, {}, { expect: 422 });
  await c.get(`/api/runs?cwd=${enc(repo)}`);
  await c.get(`/api/runs?limit=0`, { expect: 400 });

  // ----- a finished run in the repository: workspace, history, attachments, streams
  const done = runOf(await c.post('/api/runs', { agent: 'mock', callerCwd: repo, overrides: { message: mock({ say: 'done' }) } }, { expect: 201 }));
  await c.post('/api/runs', { agent: 'mock', callerCwd: repo, bogus: 1 }, { expect: 400 });
  await daemon.waitForStatus(done, 'success');
  writeFiles(repo, { 'src/main.c': 'int main(void) { return 1; }\n', 'NEW.md': 'new\n' });
  await c.get(`/api/runs/${done}/workspace/files`);
  await c.get(`/api/runs/${done}/workspace/files?path=nothing`, { expect: 404 });
  await c.get(`/api/runs/${done}/workspace/search?q=main`);
  await c.get(`/api/runs/${done}/workspace/search`, { expect: 400 });
  await c.get(`/api/runs/${done}/workspace/file?path=README.md`);
  await c.get(`/api/runs/${done}/workspace/file?path=..%2Fx`, { expect: 403 });
  await c.get(`/api/runs/${done}/workspace/raw?path=README.md`);
  await c.get(`/api/runs/${done}/workspace/raw?path=nothing`, { expect: 404 });
  await c.get(`/api/runs/${done}/workspace/diff`);
  await c.get(`/api/runs/${done}/workspace/diff?mode=run`);
  await c.get(`/api/runs/${done}/workspace/diff?mode=branch&base=main&stat=true`);
  await c.get(`/api/runs/${done}/workspace/diff?mode=branch&base=nothing`, { expect: 404 });
  await c.get(`/api/runs/${done}/workspace/diff?mode=sideways`, { expect: 400 });
  await c.get(`/api/runs/${MISSING}/workspace/diff`, { expect: 404 });
  await c.get(`/api/runs/${done}/workspace/refs`);
  await c.get(`/api/runs/${done}/workspace/refs?all=1`, { expect: 400 });
  await c.get(`/api/runs/${MISSING}/workspace/refs`, { expect: 404 });
  await c.get(`/api/runs/${done}/timeline`);
  await c.get(`/api/runs/${done}/timeline?before=latest&limit=2`);
  await c.get(`/api/runs/${done}/timeline?limit=0`, { expect: 400 });
  await c.get(`/api/runs/${done}/audit`);
  await c.get(`/api/runs/${MISSING}/audit`, { expect: 404 });
  const upload = await c.post(`/api/runs/${done}/attachments`, undefined, {
    raw: 'hello attachment\n', headers: { 'content-type': 'text/plain', 'x-agentry-attachment-name': 'notes.txt' }, expect: 201,
  });
  await c.post(`/api/runs/${done}/attachments`, undefined, { raw: 'x', headers: { 'content-type': 'text/plain', 'x-agentry-attachment-name': '..' }, expect: 400 });
  const attachmentId = upload.body?.attachment?.attachmentId;
  await c.get(`/api/runs/${done}/attachments`);
  await c.get(`/api/runs/${done}/attachments?scope=run`);
  await c.get(`/api/runs/${done}/attachments?scope=planet`, { expect: 400 });
  await c.get(`/api/runs/${done}/attachments/${attachmentId}/content`);
  await c.get(`/api/runs/${done}/attachments/att_nothing/content`, { expect: 404 });
  await c.call('DELETE', `/api/runs/${done}/attachments/${attachmentId}`);
  await c.call('DELETE', `/api/runs/${done}/attachments/${attachmentId}`, { expect: 404 });
  await c.get('/api/events/run-summaries', { stream: { frames: 1, during: () => daemon.api('POST', `/api/runs/${done}/pinned`, { pinned: true }) } });
  await c.get('/api/events/run-summaries?x=1', { expect: 400 });
  await c.get(`/api/runs/${done}/events/detail`, { stream: { frames: 1 } });
  await c.get(`/api/runs/${done}/events/timeline?after=0`, { stream: { frames: 5 } });
  await c.get(`/api/runs/${done}/events/timeline?after=-1`, { expect: 400 });
  await c.get(`/api/runs/${done}/events/audit`, { stream: { frames: 3 } });
  await c.get(`/api/runs/${MISSING}/events/audit`, { expect: 404 });
  await c.get(`/api/runs/${done}/events/browser`, { stream: { frames: 1 } }); // browser_unavailable
  await c.get(`/api/runs/${done}/browser/frame`, { expect: 404 });
  await c.post(`/api/runs/${done}/ask`, { question: 'What did you do?' });
  await c.post(`/api/runs/${done}/ask`, { question: '' }, { expect: 400 });
  await c.post(`/api/runs/${done}/reset`, {});
  await c.post(`/api/runs/${done}/reset`, {}, { expect: 422 });
  await c.post(`/api/runs/${done}/archive`, {});
  await c.post(`/api/runs/${done}/unarchive`, {});
  await c.post(`/api/runs/${done}/archive`, {});
  await c.call('DELETE', `/api/runs/${done}`);
  await c.call('DELETE', `/api/runs/${done}`, { expect: 404 });
  await c.post(`/api/runs/${MISSING}/archive`, {}, { expect: 404 });

  // ----- running runs: queued messages, an approval, live frames, abort, resume
  const live = runOf(await c.post('/api/runs', { agent: 'mock', callerCwd: repo, overrides: { message: mock({ frame: { count: 100_000, rateHz: 10 } }, { hang: true }) } }, { expect: 201 }));
  await daemon.waitForStatus(live, 'running');
  const queued = await c.post(`/api/runs/${live}/queued-resume-messages`, { text: 'and then this' }, { expect: 201 });
  await c.post(`/api/runs/${live}/queued-resume-messages`, { text: 3 }, { expect: 400 });
  await c.get(`/api/runs/${live}/queued-resume-messages`);
  await c.call('DELETE', `/api/runs/${live}/queued-resume-messages/${queued.body?.message?.id}`);
  await c.call('DELETE', `/api/runs/${live}/queued-resume-messages/qm_nothing`, { expect: 404 });
  for (let i = 0; i < 100; i++) {
    const frame = await fetch(`${daemon.baseUrl}/api/runs/${live}/browser/frame`);
    await frame.arrayBuffer();
    if (frame.status === 200) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await c.get(`/api/runs/${live}/browser/frame`);
  await c.get(`/api/runs/${live}/events/browser`, { stream: { frames: 2 } }); // browser_frame
  await c.get(`/api/runs/${live}/events/timeline?after=0`, { stream: { frames: 2 } });
  await c.post(`/api/runs/${live}/abort`, { reason: 'enough' });
  await c.post(`/api/runs/${live}/abort`, { reason: 7 }, { expect: 400 });
  await daemon.waitForStatus(live, 'aborted');
  await c.post(`/api/runs/${live}/abort`, {}, { expect: 422 });
  await c.post(`/api/runs/${tasked}/resume`, { message: mock({ hang: true }) });
  await c.post(`/api/runs/${tasked}/resume`, { message: 1 }, { expect: 400 });
  await c.post(`/api/runs/${tasked}/abort`, {});

  // A child's completion is queued on its running parent, with the child as its source.
  const parent = runOf(await c.post('/api/runs', { agent: 'mock', callerCwd: repo, overrides: { message: mock({ hang: true }) } }, { expect: 201 }));
  await daemon.waitForStatus(parent, 'running');
  const child = runOf(await c.post('/api/runs', { agent: 'mock', callerCwd: repo, parentRunId: parent, overrides: { message: mock({ say: 'child done' }) } }, { expect: 201 }));
  await daemon.waitForStatus(child, 'success');
  await until(async () => (await daemon.api('GET', `/api/runs/${parent}/queued-resume-messages`)).messages.some((m) => m.source.kind), { what: 'the child completion on the parent' });
  await c.get(`/api/runs/${parent}/queued-resume-messages`);
  await c.get(`/api/runs/${child}`); // its parentNotification
  await daemon.api('POST', `/api/runs/${parent}/abort`, {});

  const careful = runOf(await c.post('/api/runs', { agent: 'careful', callerCwd: repo, overrides: { message: mock({ ask: { summary: 'rm -rf build' } }, { say: 'ok' }) } }, { expect: 201 }));
  const waiting = await daemon.waitForRun(careful, (r) => r.pendingApprovals?.length === 1, { what: 'a pending approval' });
  await c.post(`/api/runs/${careful}/approvals/${waiting.pendingApprovals[0].approvalId}`, { decision: 'sideways' }, { expect: 400 });
  await c.post(`/api/runs/${careful}/approvals/${waiting.pendingApprovals[0].approvalId}`, { decision: 'approve' });
  await c.post(`/api/runs/${careful}/approvals/ap_nothing`, { decision: 'approve' }, { expect: 404 });

  // ----- a passive run: its backend session
  const passive = runOf(await c.post('/api/runs/init', { callerCwd: repo, overrides: { backend: 'passive', message: 'by hand' } }, { expect: 201 }));
  await c.post(`/api/runs/${passive}/backend-session`, { backendSessionId: 'session-1' });
  await c.post(`/api/runs/${passive}/backend-session`, {}, { expect: 400 });
  await c.post(`/api/runs/${passive}/backend-session/clear`, {});
  await c.post(`/api/runs/${MISSING}/backend-session/clear`, {}, { expect: 404 });

  // ----- definitions, containers, triggers, project trust
  for (const [kind, name] of [['agents', 'mock'], ['assignments', 'feature'], ['launchers', 'niced'], ['environments', 'sandbox'], ['task-definitions', enc('review/check')]]) {
    await c.get(`/api/${kind}`);
    await c.get(`/api/${kind}?cwd=${enc(repo)}`);
    await c.get(`/api/${kind}/${name}`);
    await c.get(`/api/${kind}/nothing`, { expect: 404 });
    await c.get(`/api/${kind}?cwd=relative`, { expect: 400 });
  }
  await c.get('/api/containers');
  await c.post('/api/containers/cleanup', {});
  await c.post('/api/containers/cleanup', { all: 'yes' }, { expect: 400 });
  await c.get('/api/triggers');
  const sign = (body) => {
    const ts = String(Math.floor(Date.now() / 1000));
    const signature = `sha256=${crypto.createHmac('sha256', SECRET).update(`${ts}.${body}`).digest('hex')}`;
    return { 'content-type': 'application/json', 'x-agentry-timestamp': ts, 'x-agentry-signature': signature };
  };
  const payload = JSON.stringify({ id: 'event-1', feature: 'webhooks' });
  const signed = sign(payload);
  await c.post('/api/triggers/hook', undefined, { raw: payload, headers: signed, expect: 201 });
  await c.post('/api/triggers/hook', undefined, { raw: payload, headers: signed, expect: 200 });
  await c.post('/api/triggers/hook', undefined, { raw: payload, headers: { ...signed, 'x-agentry-signature': 'sha256=00' }, expect: 401 });
  await c.post('/api/triggers/hook', undefined, { raw: 'not json', headers: sign('not json'), expect: 400 });
  const closed = JSON.stringify({ action: 'closed', feature: 'x' });
  await c.post('/api/triggers/filtered', undefined, { raw: closed, headers: sign(closed), expect: 202 });
  await c.post('/api/triggers/nothing', undefined, { raw: payload, headers: signed, expect: 404 });
  await c.get(`/api/projects/trust?dir=${enc(repo)}`);
  await c.get('/api/projects/trust?dir=relative', { expect: 400 });
  await c.post('/api/projects/trust', { dir: repo });
  await c.get('/api/projects/trusted');
  await c.post('/api/projects/trust/revoke', { dir: repo });
  await c.post('/api/projects/trust/revoke', { dir: repo }, { expect: 404 });
  await c.post('/api/projects/trust', { dir: daemon.home }, { expect: 404 });

  assert.deepEqual(c.problems, [], `answers that do not match docs/openapi.yaml or the test:\n${c.problems.join('\n')}`);
  assert.deepEqual(contract.unexercised(), [], 'operations of docs/openapi.yaml no request reached');
});
