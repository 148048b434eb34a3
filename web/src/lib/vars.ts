// Client-side check of an assignment's typed vars, as the daemon checks a web caller's
// `webVars` (docs/definitions.md, "Variables"): the source must allow `web`, the value
// must fit the type, and a required var needs a value unless a default or another
// source (env, parent) may give one.

export interface VarSpec {
  type?: 'string' | 'number' | 'boolean' | 'enum';
  required?: boolean;
  sources?: string[];
  default?: unknown;
  values?: string[];
  description?: string;
  env?: string;
  envName?: string;
}

export type VarSpecs = Record<string, VarSpec>;

/** What the form holds: text for each var, '' meaning "not set". */
export type VarInputs = Record<string, string>;

export interface VarCheck {
  values: Record<string, string | number | boolean>;
  errors: Record<string, string>;
}

export function acceptsWeb(spec: VarSpec): boolean {
  return (spec.sources ?? ['cli', 'web']).includes('web');
}

/** Whether something other than the caller could supply the var (so "required" is not ours to enforce). */
function otherSource(spec: VarSpec): boolean {
  return (spec.sources ?? ['cli', 'web']).some((s) => s === 'env' || s === 'parent');
}

export function checkVars(specs: VarSpecs, inputs: VarInputs): VarCheck {
  const values: VarCheck['values'] = {};
  const errors: VarCheck['errors'] = {};
  for (const name of Object.keys(inputs)) {
    if (!(name in specs) && inputs[name].trim() !== '') errors[name] = `unknown variable '${name}'`;
  }
  for (const [name, spec] of Object.entries(specs)) {
    const raw = inputs[name] ?? '';
    const type = spec.type ?? 'string';
    const set = type === 'string' ? raw !== '' : raw.trim() !== '';
    if (!set) {
      if (spec.required && spec.default === undefined && !otherSource(spec)) {
        errors[name] = `${name} is required`;
      }
      continue;
    }
    if (!acceptsWeb(spec)) {
      errors[name] = `${name} cannot be set from the dashboard (sources: ${(spec.sources ?? []).join(', ')})`;
      continue;
    }
    const text = raw.trim();
    switch (type) {
      case 'number': {
        const n = Number(text);
        if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text) || !Number.isFinite(n)) {
          errors[name] = `${name} must be a number`;
        } else {
          values[name] = n;
        }
        break;
      }
      case 'boolean': {
        const t = text.toLowerCase();
        if (t === 'true' || t === '1') values[name] = true;
        else if (t === 'false' || t === '0') values[name] = false;
        else errors[name] = `${name} must be true or false`;
        break;
      }
      case 'enum': {
        const allowed = spec.values ?? [];
        if (!allowed.includes(raw)) errors[name] = `${name} must be one of: ${allowed.join(', ')}`;
        else values[name] = raw;
        break;
      }
      default:
        values[name] = raw;
    }
  }
  return { values, errors };
}

export interface RunFormInput {
  agent: string;
  assignment: string;
  message: string;
  timeoutSec: string;
  cwd?: string;
  /** The assignment's own cwd, when it has one. */
  assignmentCwd?: string | null;
}

/** Checks of the form outside the vars. */
export function checkRunForm(f: RunFormInput): string[] {
  const errors: string[] = [];
  if (!f.agent) errors.push('Pick an agent.');
  if (!f.assignment && !f.message.trim()) errors.push('A message is required without an assignment.');
  const cwd = (f.cwd ?? '').trim();
  if (!cwd && !f.assignmentCwd) errors.push('A working directory is required (the assignment sets none).');
  if (cwd && !cwd.startsWith('/')) errors.push('The working directory must be an absolute path.');
  if (f.timeoutSec.trim() !== '' && !/^\d+$/.test(f.timeoutSec.trim())) {
    errors.push('timeoutSec must be a whole number of seconds (0 = no limit).');
  }
  return errors;
}
