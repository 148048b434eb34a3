// The new-run form, generated from the chosen assignment's typed vars; the definitions it
// offers follow the working directory (its project's too, once trusted).

import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, ApiError, errorText } from '../../lib/api';
import {
  defaultCwd,
  EMPTY_FIELDS,
  initialVars,
  loadAssignment,
  loadDefinitions,
  rememberCwd,
  runRequestBody,
  type AssignmentDetail,
  type Definitions,
  type Project,
  type RunFields,
} from '../../lib/newRun';
import { useResource } from '../../lib/resource';
import { navigate } from '../../lib/router';
import { runPath } from '../../lib/route';
import { summaries } from '../../lib/summaries';
import { checkRunForm, checkVars } from '../../lib/vars';
import { ProjectTrust } from './ProjectTrust';
import { VarFields } from './VarFields';

type Submit = 'init' | 'ready' | 'start';

export function NewRun() {
  const [agent, setAgent] = useState('');
  const [assignment, setAssignment] = useState('');
  const [vars, setVars] = useState<Record<string, string>>({});
  const [f, setF] = useState<RunFields>(() => ({ ...EMPTY_FIELDS, cwd: defaultCwd(summaries.runs.values()) }));
  const [errors, setErrors] = useState<string[]>([]);
  const [varErrors, setVarErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  // A project the daemon named when it refused a start: shown until the next listing.
  const [refused, setRefused] = useState<Project | null>(null);
  const [definitionsCwd, setDefinitionsCwd] = useState(f.cwd);
  const [reloads, setReloads] = useState(0);

  // The working directory's project adds its definitions: looked up once typing pauses.
  useEffect(() => {
    const timer = setTimeout(() => setDefinitionsCwd(f.cwd), 400);
    return () => clearTimeout(timer);
  }, [f.cwd]);

  const defs = useResource<Definitions>((signal) => loadDefinitions(definitionsCwd, signal), [definitionsCwd, reloads]);
  const agents = defs.data?.agents ?? [];
  const assignments = defs.data?.assignments ?? [];
  const launchers = defs.data?.launchers ?? [];
  const projectProblems = defs.data?.problems ?? [];
  const loadErr = defs.error ? errorText(defs.error) : null;
  const project = refused ?? defs.data?.project ?? null;
  useEffect(() => {
    if (!defs.data) return;
    setRefused(null);
    const ag = defs.data.agents;
    if (ag.length && !ag.some((x) => x.name === agent)) setAgent(ag[0].name);
  }, [defs.data]);

  const trustProject = async () => {
    if (!project) return;
    try {
      await api('api/projects/trust', { method: 'POST', body: { dir: project.projectDir } });
      setErrors([]);
      setReloads((n) => n + 1);
    } catch (e) {
      setErrors([errorText(e)]);
    }
  };

  const assignmentRes = useResource<AssignmentDetail>(
    assignment ? (signal) => loadAssignment(assignment, definitionsCwd, signal) : null,
    [assignment, definitionsCwd, reloads],
    { clearOnChange: true },
  );
  const detail = assignmentRes.data;
  useEffect(() => setVarErrors({}), [assignment, definitionsCwd, reloads]);
  useEffect(() => {
    if (assignmentRes.data !== null) setVars(initialVars(assignmentRes.data?.vars ?? {}));
  }, [assignmentRes.data]);
  useEffect(() => {
    if (assignmentRes.error) setErrors([errorText(assignmentRes.error)]);
  }, [assignmentRes.error]);

  const specs = detail?.vars ?? {};
  const set = (k: keyof RunFields) => (e: Event) => setF({ ...f, [k]: (e.currentTarget as HTMLInputElement).value });
  const agentInfo = useMemo(() => agents.find((a) => a.name === agent), [agents, agent]);

  const submit = async (kind: Submit) => {
    const formErrors = checkRunForm({ agent, assignment, message: f.message, timeoutSec: f.timeoutSec, cwd: f.cwd, assignmentCwd: detail?.cwd });
    const vc = checkVars(specs, assignment ? vars : {});
    setVarErrors(vc.errors);
    const all = [...formErrors, ...Object.values(vc.errors)];
    setErrors(all);
    if (all.length) return;
    if (f.cwd.trim()) rememberCwd(f.cwd.trim());
    const body = runRequestBody(agent, assignment, f, vc.values, specs, vars);
    setBusy(true);
    try {
      const res = await api(kind === 'start' ? 'api/runs' : 'api/runs/init', { method: 'POST', body });
      const id: string = res.runId ?? res.run?.runId;
      if (kind === 'ready') await api(`api/runs/${encodeURIComponent(id)}/ready`, { method: 'POST', body: {} });
      navigate(runPath(id));
    } catch (e) {
      setErrors([errorText(e)]);
      // A project's definition it may not use untrusted: offer to trust it.
      if (e instanceof ApiError && typeof e.details.projectDir === 'string' && e.details.projectTrusted === false)
        setRefused({ projectDir: e.details.projectDir, trusted: false });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="pad new-run">
      <h1>New run</h1>
      {loadErr && <div class="error">Loading definitions failed: {loadErr}</div>}
      {project && !project.trusted && <ProjectTrust project={project} problems={projectProblems} onTrust={trustProject} />}
      <form
        data-testid="new-run-form"
        class="form"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          submit('start');
        }}
      >
        <label>
          <span>Agent</span>
          <select name="agent" value={agent} onChange={(e) => setAgent((e.currentTarget as HTMLSelectElement).value)}>
            {agents.length === 0 && <option value="">(no agents)</option>}
            {agents.map((a) => (
              <option value={a.name}>{a.name}</option>
            ))}
          </select>
          {agentInfo && (
            <small class="muted">
              {agentInfo.backend}
              {agentInfo.model ? ' · ' + agentInfo.model : ''}
              {agentInfo.description ? ' — ' + agentInfo.description : ''}
            </small>
          )}
        </label>
        <label>
          <span>Assignment</span>
          <select name="assignment" value={assignment} onChange={(e) => setAssignment((e.currentTarget as HTMLSelectElement).value)}>
            <option value="">(none: a message only)</option>
            {assignments.map((a) => (
              <option value={a.name}>{a.name}</option>
            ))}
          </select>
          {detail?.description && <small class="muted">{detail.description}</small>}
          {detail?.callerInstructions && <small class="hint">{detail.callerInstructions}</small>}
        </label>
        {detail && Object.keys(specs).length > 0 && (
          <VarFields specs={specs} values={vars} errors={varErrors} onChange={setVars} />
        )}
        {detail && detail.tasks?.length > 0 && (
          <div class="small muted">
            tasks: {detail.tasks.map((t) => t.title).join(' · ')}
          </div>
        )}
        <label>
          <span>Message{assignment ? '' : ' *'}</span>
          <textarea name="message" rows={4} value={f.message} onInput={set('message')} placeholder={detail?.message ? `default: ${detail.message}` : 'What should the agent do?'} />
        </label>
        <label>
          <span>Name</span>
          <input name="name" value={f.name} onInput={set('name')} placeholder="optional" />
        </label>
        <label>
          <span>Working directory</span>
          <input name="cwd" value={f.cwd} onInput={set('cwd')} placeholder={detail?.cwd ?? 'absolute path (default: the assignment’s or the daemon’s)'} />
        </label>
        <fieldset class="overrides">
          <legend>Overrides</legend>
          <label>
            <span>Model</span>
            <input name="model" value={f.model} onInput={set('model')} placeholder={agentInfo?.model ?? 'backend default'} />
          </label>
          <label>
            <span>Effort</span>
            <input name="effort" value={f.effort} onInput={set('effort')} placeholder="backend default" />
          </label>
          <label>
            <span>Timeout (s, 0 = none)</span>
            <input name="timeoutSec" inputMode="numeric" value={f.timeoutSec} onInput={set('timeoutSec')} placeholder="agent default" />
          </label>
          <label>
            <span>Launcher</span>
            <select name="launcher" value={f.launcher} onChange={set('launcher')}>
              <option value="">(agent default)</option>
              {launchers.map((l) => (
                <option value={l.name}>{l.name}</option>
              ))}
            </select>
          </label>
        </fieldset>
        {errors.length > 0 && (
          <div class="error" data-testid="form-error" role="alert">
            {errors.map((e) => (
              <div>{e}</div>
            ))}
          </div>
        )}
        <div class="buttons">
          <button type="button" data-testid="submit-init" disabled={busy} onClick={() => submit('init')} title="Create it, initialized: nothing runs">
            Init
          </button>
          <button type="button" data-testid="submit-ready" disabled={busy} onClick={() => submit('ready')} title="Create it and mark it ready (schedules and dependencies may start it)">
            Ready
          </button>
          <button type="submit" class="primary" data-testid="submit-start" disabled={busy}>
            Start
          </button>
        </div>
      </form>
    </section>
  );
}
