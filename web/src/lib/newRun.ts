// The new-run form's logic outside the vars (vars.ts): where definitions are looked up,
// what the project's files got wrong, the vars' first values and the request body.

import { api } from './api';
import { acceptsWeb, type VarSpecs } from './vars';

/** The form's free fields, as typed. */
export interface RunFields {
  name: string;
  message: string;
  cwd: string;
  model: string;
  effort: string;
  timeoutSec: string;
  launcher: string;
}

export const EMPTY_FIELDS: RunFields = { name: '', message: '', cwd: '', model: '', effort: '', timeoutSec: '', launcher: '' };

/** `?cwd=` for the definition routes: the working directory when it is an absolute path. */
export function cwdQuery(cwd: string): string {
  const c = cwd.trim();
  return c.startsWith('/') ? `?cwd=${encodeURIComponent(c)}` : '';
}

interface Warning {
  path?: unknown;
  field?: string;
  message: string;
}

/** What the listings skipped or shadowed of the project's own files (under `<dir>/.agentry/`), as lines for the trust prompt. */
export function projectProblems(projectDir: string | undefined, lists: Array<{ warnings?: Warning[] } | undefined>): string[] {
  const problems: string[] = [];
  if (!projectDir) return problems;
  for (const list of lists)
    for (const w of list?.warnings ?? [])
      if (typeof w.path === 'string' && w.path.startsWith(`${projectDir}/.agentry/`))
        problems.push(`${w.path.slice(projectDir.length + 1)}${w.field ? `: ${w.field}` : ''}: ${w.message}`);
  return problems;
}

/** The vars' first values: a default the web may set, else empty. */
export function initialVars(specs: VarSpecs): Record<string, string> {
  const init: Record<string, string> = {};
  for (const [name, spec] of Object.entries(specs)) {
    init[name] = spec.default !== undefined && spec.default !== null && acceptsWeb(spec) ? String(spec.default) : '';
  }
  return init;
}

/**
 * The body of POST api/runs (or api/runs/init). A var still at the default the form
 * prefilled is not sent: the daemon applies it itself. Definitions come from the working
 * directory's project too (`definitionCwd`), as `agentry run` does.
 */
export function runRequestBody(
  agent: string,
  assignment: string,
  f: RunFields,
  values: Record<string, string | number | boolean>,
  specs: VarSpecs,
  inputs: Record<string, string>,
): Record<string, unknown> {
  const webVars: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(values)) {
    const d = specs[k]?.default;
    if (d !== undefined && d !== null && String(d) === inputs[k]) continue;
    webVars[k] = v;
  }
  const overrides: Record<string, unknown> = {};
  if (f.message.trim()) overrides.message = f.message;
  if (f.cwd.trim()) overrides.cwd = f.cwd.trim();
  if (f.model.trim()) overrides.model = f.model.trim();
  if (f.effort.trim()) overrides.effort = f.effort.trim();
  if (f.timeoutSec.trim()) overrides.timeoutSec = Number(f.timeoutSec.trim());
  if (f.launcher) overrides.launcher = f.launcher;
  const body: Record<string, unknown> = { agent };
  if (f.cwd.trim().startsWith('/')) body.definitionCwd = f.cwd.trim();
  if (assignment) body.assignment = assignment;
  if (f.name.trim()) body.name = f.name.trim();
  if (Object.keys(webVars).length) body.webVars = webVars;
  if (Object.keys(overrides).length) body.overrides = overrides;
  return body;
}

export interface DefEntry {
  name: string;
  description?: string;
  backend?: string;
  model?: string | null;
  vars?: string[];
}

export interface AssignmentDetail {
  name: string;
  description: string;
  cwd: string | null;
  message: string | null;
  callerInstructions: string;
  vars: VarSpecs;
  lockedFields: string[];
  tasks: Array<{ id: string; title: string }>;
}

/** The project (a `.agentry/` at or above the working directory) the definitions came from. */
export interface Project {
  projectDir: string;
  trusted: boolean;
}

export interface Definitions {
  agents: DefEntry[];
  assignments: DefEntry[];
  launchers: DefEntry[];
  project: Project | null;
  problems: string[];
}

/** The agents, assignments and launchers the form offers for a working directory (its project's too). */
export async function loadDefinitions(cwd: string, signal?: AbortSignal): Promise<Definitions> {
  const q = cwdQuery(cwd);
  const [a, s, l] = await Promise.all([api(`api/agents${q}`, { signal }), api(`api/assignments${q}`, { signal }), api(`api/launchers${q}`, { signal })]);
  return {
    agents: a.agents?.entries ?? [],
    assignments: s.assignments?.entries ?? [],
    launchers: l.launchers?.entries ?? [],
    project: a.project ?? null,
    problems: projectProblems(a.project?.projectDir, [a.agents, s.assignments, l.launchers]),
  };
}

/** One assignment as the form shows it (its vars, default message and cwd, tasks). */
export async function loadAssignment(name: string, cwd: string, signal?: AbortSignal): Promise<AssignmentDetail> {
  const r = await api(`api/assignments/${encodeURIComponent(name)}${cwdQuery(cwd)}`, { signal });
  return r.assignment?.assignment;
}

const CWD_KEY = 'agentry.lastCwd';

/** The working directory last used here, else the newest run's. */
export function defaultCwd(runs: Iterable<{ cwd: string; createdAt: string }>): string {
  try {
    const saved = localStorage.getItem(CWD_KEY);
    if (saved) return saved;
  } catch {
    /* storage unavailable */
  }
  let newest: { cwd: string; createdAt: string } | null = null;
  for (const r of runs) if (!newest || r.createdAt > newest.createdAt) newest = r;
  return newest?.cwd ?? '';
}

export function rememberCwd(cwd: string): void {
  try {
    localStorage.setItem(CWD_KEY, cwd);
  } catch {
    /* storage unavailable */
  }
}
