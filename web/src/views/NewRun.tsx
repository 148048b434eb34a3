// The new-run form, generated from the chosen assignment's typed vars.

import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, ApiError, errorText } from '../lib/api';
import { navigate } from '../lib/router';
import { runPath } from '../lib/route';
import { summaries } from '../lib/summaries';
import { acceptsWeb, checkRunForm, checkVars, type VarSpecs } from '../lib/vars';

interface DefEntry {
  name: string;
  description?: string;
  backend?: string;
  model?: string | null;
  vars?: string[];
}

interface AssignmentDetail {
  name: string;
  description: string;
  cwd: string | null;
  message: string | null;
  callerInstructions: string;
  vars: VarSpecs;
  lockedFields: string[];
  tasks: Array<{ id: string; title: string }>;
}

type Submit = 'init' | 'ready' | 'start';

const CWD_KEY = 'agentry.lastCwd';

/** The project (a `.agentry/` at or above the working directory) the definitions came from. */
interface Project {
  projectDir: string;
  trusted: boolean;
}

/** `?cwd=` for the definition routes: the working directory when it is an absolute path. */
function cwdQuery(cwd: string): string {
  const c = cwd.trim();
  return c.startsWith('/') ? `?cwd=${encodeURIComponent(c)}` : '';
}

/** The working directory last used here, else the newest run's. */
function defaultCwd(): string {
  try {
    const saved = localStorage.getItem(CWD_KEY);
    if (saved) return saved;
  } catch {
    /* storage unavailable */
  }
  let newest: { cwd: string; createdAt: string } | null = null;
  for (const r of summaries.runs.values()) if (!newest || r.createdAt > newest.createdAt) newest = r;
  return newest?.cwd ?? '';
}

export function NewRun() {
  const [agents, setAgents] = useState<DefEntry[]>([]);
  const [assignments, setAssignments] = useState<DefEntry[]>([]);
  const [launchers, setLaunchers] = useState<DefEntry[]>([]);
  const [loadErr, setLoadErr] = useState<string | null>(null);
  const [agent, setAgent] = useState('');
  const [assignment, setAssignment] = useState('');
  const [detail, setDetail] = useState<AssignmentDetail | null>(null);
  const [vars, setVars] = useState<Record<string, string>>({});
  const [f, setF] = useState({ name: '', message: '', cwd: defaultCwd(), model: '', effort: '', timeoutSec: '', launcher: '' });
  const [errors, setErrors] = useState<string[]>([]);
  const [varErrors, setVarErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const [project, setProject] = useState<Project | null>(null);
  const [projectProblems, setProjectProblems] = useState<string[]>([]);
  const [definitionsCwd, setDefinitionsCwd] = useState(f.cwd);
  const [reloads, setReloads] = useState(0);

  // The working directory's project adds its definitions: looked up once typing pauses.
  useEffect(() => {
    const timer = setTimeout(() => setDefinitionsCwd(f.cwd), 400);
    return () => clearTimeout(timer);
  }, [f.cwd]);

  useEffect(() => {
    let live = true;
    const q = cwdQuery(definitionsCwd);
    Promise.all([api(`api/agents${q}`), api(`api/assignments${q}`), api(`api/launchers${q}`)])
      .then(([a, s, l]) => {
        if (!live) return;
        const ag: DefEntry[] = a.agents?.entries ?? [];
        setAgents(ag);
        setAssignments(s.assignments?.entries ?? []);
        setLaunchers(l.launchers?.entries ?? []);
        setProject(a.project ?? null);
        // What the listings skipped or shadowed of the project's files, said in the prompt.
        const dir: string | undefined = a.project?.projectDir;
        const problems: string[] = [];
        for (const list of [a.agents, s.assignments, l.launchers])
          for (const w of list?.warnings ?? [])
            if (dir && typeof w.path === 'string' && w.path.startsWith(`${dir}/.agentry/`))
              problems.push(`${w.path.slice(dir.length + 1)}${w.field ? `: ${w.field}` : ''}: ${w.message}`);
        setProjectProblems(problems);
        setLoadErr(null);
        if (ag.length && !ag.some((x) => x.name === agent)) setAgent(ag[0].name);
      })
      .catch((e) => live && setLoadErr(errorText(e)));
    return () => {
      live = false;
    };
  }, [definitionsCwd, reloads]);

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

  useEffect(() => {
    setDetail(null);
    setVarErrors({});
    if (!assignment) return;
    let live = true;
    api(`api/assignments/${encodeURIComponent(assignment)}${cwdQuery(definitionsCwd)}`)
      .then((r) => {
        if (!live) return;
        const d: AssignmentDetail = r.assignment?.assignment;
        setDetail(d);
        const init: Record<string, string> = {};
        for (const [name, spec] of Object.entries(d?.vars ?? {})) {
          init[name] = spec.default !== undefined && spec.default !== null && acceptsWeb(spec) ? String(spec.default) : '';
        }
        setVars(init);
      })
      .catch((e) => live && setErrors([errorText(e)]));
    return () => {
      live = false;
    };
  }, [assignment, definitionsCwd, reloads]);

  const specs = detail?.vars ?? {};
  const set = (k: keyof typeof f) => (e: Event) => setF({ ...f, [k]: (e.currentTarget as HTMLInputElement).value });
  const agentInfo = useMemo(() => agents.find((a) => a.name === agent), [agents, agent]);

  const submit = async (kind: Submit) => {
    const formErrors = checkRunForm({ agent, assignment, message: f.message, timeoutSec: f.timeoutSec, cwd: f.cwd, assignmentCwd: detail?.cwd });
    const vc = checkVars(specs, assignment ? vars : {});
    // A default the form prefilled is not sent unless changed: the daemon applies it itself.
    const webVars: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(vc.values)) {
      const d = specs[k]?.default;
      if (d !== undefined && d !== null && String(d) === vars[k]) continue;
      webVars[k] = v;
    }
    setVarErrors(vc.errors);
    const all = [...formErrors, ...Object.values(vc.errors)];
    setErrors(all);
    if (all.length) return;
    const overrides: Record<string, unknown> = {};
    if (f.message.trim()) overrides.message = f.message;
    if (f.cwd.trim()) {
      overrides.cwd = f.cwd.trim();
      try {
        localStorage.setItem(CWD_KEY, overrides.cwd as string);
      } catch {
        /* storage unavailable */
      }
    }
    if (f.model.trim()) overrides.model = f.model.trim();
    if (f.effort.trim()) overrides.effort = f.effort.trim();
    if (f.timeoutSec.trim()) overrides.timeoutSec = Number(f.timeoutSec.trim());
    if (f.launcher) overrides.launcher = f.launcher;
    const body: Record<string, unknown> = { agent };
    // Definitions come from the working directory's project too, as `agentry run` does.
    if (f.cwd.trim().startsWith('/')) body.definitionCwd = f.cwd.trim();
    if (assignment) body.assignment = assignment;
    if (f.name.trim()) body.name = f.name.trim();
    if (Object.keys(webVars).length) body.webVars = webVars;
    if (Object.keys(overrides).length) body.overrides = overrides;
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
        setProject({ projectDir: e.details.projectDir, trusted: false });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="pad new-run">
      <h1>New run</h1>
      {loadErr && <div class="error">Loading definitions failed: {loadErr}</div>}
      {project && !project.trusted && (
        <div class="notice" data-testid="project-trust" role="alert">
          <p>
            <strong>{project.projectDir}</strong> has a <code>.agentry/</code> you have not trusted. Until you do, its
            definitions may not run programs, read the daemon’s environment or replace yours of the same name. Read them
            first: trusted, they may do all of that, until any of its files changes.
          </p>
          {projectProblems.length > 0 && (
            <ul class="small" data-testid="project-problems">
              {projectProblems.slice(0, 8).map((p) => (
                <li>{p}</li>
              ))}
            </ul>
          )}
          <button type="button" data-testid="trust-project" onClick={trustProject}>
            Trust this project
          </button>
        </div>
      )}
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
          <fieldset class="vars">
            <legend>Variables</legend>
            {Object.entries(specs).map(([name, spec]) => {
              const type = spec.type ?? 'string';
              const web = acceptsWeb(spec);
              const value = vars[name] ?? '';
              const onInput = (e: Event) => setVars({ ...vars, [name]: (e.currentTarget as HTMLInputElement).value });
              const required = spec.required && spec.default === undefined;
              return (
                <label class={varErrors[name] ? 'invalid' : ''}>
                  <span>
                    {name}
                    {required ? ' *' : ''} <small class="muted">{type}</small>
                  </span>
                  {type === 'enum' ? (
                    <select name={`var.${name}`} value={value} onChange={onInput} disabled={!web}>
                      <option value="">{spec.default !== undefined ? `(default: ${spec.default})` : '(unset)'}</option>
                      {(spec.values ?? []).map((v) => (
                        <option value={v}>{v}</option>
                      ))}
                    </select>
                  ) : type === 'boolean' ? (
                    <select name={`var.${name}`} value={value} onChange={onInput} disabled={!web}>
                      <option value="">{spec.default !== undefined ? `(default: ${spec.default})` : '(unset)'}</option>
                      <option value="true">true</option>
                      <option value="false">false</option>
                    </select>
                  ) : (
                    <input name={`var.${name}`} type="text" inputMode={type === 'number' ? 'decimal' : undefined} value={value} onInput={onInput} disabled={!web} required={required} />
                  )}
                  <small class="muted">
                    {spec.description}
                    {!web ? ` (set by ${(spec.sources ?? []).join(', ')} only)` : ''}
                  </small>
                  {varErrors[name] && <small class="error-text">{varErrors[name]}</small>}
                </label>
              );
            })}
          </fieldset>
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
