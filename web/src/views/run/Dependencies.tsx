// What the run waits on (runs, groups), with add and remove when its capabilities allow.

import { useState } from 'preact/hooks';
import { api, errorText } from '../../lib/api';
import { parseDependency } from '../../lib/runForms';
import type { RunDetail } from '../../lib/types';

const enc = encodeURIComponent;

export function Dependencies({ run, onRun }: { run: RunDetail; onRun: (r: RunDetail) => void }) {
  const deps = run.dependencies ?? [];
  const can = !!run.capabilities?.canEditDependencies;
  const [text, setText] = useState('');
  const [err, setErr] = useState<string | null>(null);
  if (!deps.length && !can) return null;
  const call = async (method: string, body: unknown) => {
    setErr(null);
    try {
      const res = await api(`api/runs/${enc(run.runId)}/dependencies`, { method, body });
      if (res?.run) onRun(res.run);
      return true;
    } catch (e) {
      setErr(errorText(e));
      return false;
    }
  };
  return (
    <div class="deps small" data-testid="dependencies">
      <span class="muted">waits on:</span>{' '}
      {deps.length === 0 && <span class="muted">nothing</span>}
      {deps.map((d) => (
        <span class={'pill ' + (d.satisfied ? 'ok-text' : 'warn-text')} data-testid="dependency">
          {d.type === 'run' ? `run ${d.runId} (${d.status ?? 'missing'})` : `group ${d.groupId} (${d.succeeded ?? 0}/${d.members ?? 0} succeeded)`}
          {can && (
            <button class="link" title="remove" onClick={() => call('DELETE', d.type === 'run' ? { type: 'run', runId: d.runId } : { type: 'group', groupId: d.groupId })}>
              ×
            </button>
          )}
        </span>
      ))}
      {can && (
        <form
          class="inline"
          onSubmit={async (e) => {
            e.preventDefault();
            const dep = parseDependency(text);
            if (!dep) return setErr('Name a run id, or group:<id>.');
            if (await call('POST', dep)) setText('');
          }}
        >
          <input data-testid="dependency-input" placeholder="run id or group:<id>" value={text} onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)} />
          <button type="submit" data-testid="dependency-add">
            Add
          </button>
        </form>
      )}
      {err && <div class="error">{err}</div>}
    </div>
  );
}
