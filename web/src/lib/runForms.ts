// What the run header's small forms send: a dependency to add, a schedule to set, and how
// a run's input vars read.

/** `run:<id>` / `group:<id>` (or a bare run id) as the dependency routes take it. */
export function parseDependency(text: string): { type: 'run'; runId: string } | { type: 'group'; groupId: string } | null {
  const t = text.trim();
  if (!t) return null;
  if (t.startsWith('group:')) return t.length > 6 ? { type: 'group', groupId: t.slice(6) } : null;
  const id = t.startsWith('run:') ? t.slice(4) : t;
  return id ? { type: 'run', runId: id } : null;
}

/** The body of PUT .../schedule from the form: exactly one of delay, at, cron. */
export function scheduleBody(kind: string, value: string, timezone: string, mode: string): Record<string, string> | string {
  const v = value.trim();
  if (!v) return 'Give a delay, a time or a cron expression.';
  if (kind === 'delay') return { delay: v };
  if (kind === 'at') {
    const t = new Date(v);
    if (Number.isNaN(t.getTime())) return 'Not a time.';
    return { at: t.toISOString() };
  }
  const body: Record<string, string> = { cron: v };
  if (timezone.trim()) body.timezone = timezone.trim();
  if (mode) body.mode = mode;
  return body;
}

/** A run var's value as the sessions tab shows it; a secret says where it came from instead. */
export function varText(v: unknown): string {
  if (v && typeof v === 'object' && (v as { redacted?: unknown }).redacted) {
    const r = v as { source?: string; envName?: string; inheritedFromRunId?: string };
    return `[redacted: ${r.source ?? ''}${r.envName ? ' ' + r.envName : ''}${r.inheritedFromRunId ? ' via ' + r.inheritedFromRunId : ''}]`;
  }
  return v === null || v === undefined ? '(unset)' : typeof v === 'string' ? v : JSON.stringify(v);
}
