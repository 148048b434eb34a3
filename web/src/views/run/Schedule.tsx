// The run's schedule (a delay, a time or a cron expression) and its state, with set,
// change, enable, disable and clear.

import { useState } from 'preact/hooks';
import { api, errorText } from '../../lib/api';
import { time } from '../../lib/format';
import { scheduleBody } from '../../lib/runForms';
import type { RunDetail } from '../../lib/types';

const enc = encodeURIComponent;

export function Schedule({ run, onRun }: { run: RunDetail; onRun: (r: RunDetail) => void }) {
  const sch = run.schedule as Record<string, any> | null | undefined;
  const st = run.scheduleState;
  const [editing, setEditing] = useState(false);
  const [kind, setKind] = useState('delay');
  const [value, setValue] = useState('');
  const [tz, setTz] = useState(() => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  const [mode, setMode] = useState('reuse');
  const [err, setErr] = useState<string | null>(null);
  const call = async (method: string, path: string, body?: unknown) => {
    setErr(null);
    try {
      const res = await api(`api/runs/${enc(run.runId)}/schedule${path}`, { method, body });
      if (res?.run) onRun(res.run);
      return true;
    } catch (e) {
      setErr(errorText(e));
      return false;
    }
  };
  if (run.archived && !sch) return null;
  return (
    <div class="deps small" data-testid="schedule">
      <span class="muted">schedule:</span>{' '}
      {sch ? (
        <span class="pill">
          {sch.kind === 'recurring' ? `cron ${sch.cron} (${sch.timezone})` : sch.at ? `at ${time(sch.at)}` : `once`}
          {st ? ` · ${st.state}` : ''}
          {st?.nextAt ? ` · next ${time(st.nextAt)}` : ''}
          {st?.reason ? ` · ${st.reason}` : ''}
        </span>
      ) : (
        <span class="muted">none</span>
      )}
      {sch && sch.enabled === false && <button onClick={() => call('POST', '/enable')}>Enable</button>}
      {sch && sch.enabled !== false && <button onClick={() => call('POST', '/disable')}>Disable</button>}
      {sch && sch.kind !== 'recurring' && <button onClick={() => call('DELETE', '')}>Clear</button>}
      {!editing && !run.archived && <button onClick={() => setEditing(true)}>{sch ? 'Change' : 'Schedule'}</button>}
      {editing && (
        <form
          class="inline"
          onSubmit={async (e) => {
            e.preventDefault();
            const body = scheduleBody(kind, value, tz, mode);
            if (typeof body === 'string') return setErr(body);
            if (await call('PUT', '', body)) setEditing(false);
          }}
        >
          <select value={kind} onChange={(e) => setKind((e.currentTarget as HTMLSelectElement).value)}>
            <option value="delay">in</option>
            <option value="at">at</option>
            <option value="cron">cron</option>
          </select>
          {kind === 'at' ? (
            <input type="datetime-local" value={value} onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)} />
          ) : (
            <input placeholder={kind === 'delay' ? '30m, 1h30m' : '0 9 * * MON-FRI'} value={value} onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)} />
          )}
          {kind === 'cron' && (
            <>
              <input placeholder="timezone" value={tz} onInput={(e) => setTz((e.currentTarget as HTMLInputElement).value)} />
              <select value={mode} onChange={(e) => setMode((e.currentTarget as HTMLSelectElement).value)}>
                <option value="reuse">reuse</option>
                <option value="reset">reset</option>
                <option value="clone">clone</option>
              </select>
            </>
          )}
          <button type="submit" class="primary">
            Set
          </button>
          <button type="button" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
      )}
      {err && <div class="error">{err}</div>}
    </div>
  );
}
