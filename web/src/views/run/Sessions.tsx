// The run's inputs (vars, message, brief) and its sessions with their attempts.

import { time } from '../../lib/format';
import { varText } from '../../lib/runForms';
import type { RunDetail } from '../../lib/types';

export function Sessions({ run }: { run: RunDetail }) {
  const sessions = run.sessions ?? [];
  const vars = Object.entries(run.vars ?? {});
  const brief = (run as RunDetail & { brief?: string }).brief;
  return (
    <div class="pad sessions">
      <details class="inputs" data-testid="run-inputs">
        <summary class="muted">inputs: {vars.length} vars · message · brief</summary>
        {vars.length > 0 && (
          <table class="small kv">
            <tbody>
              {vars.map(([k, v]) => (
                <tr>
                  <th class="mono">{k}</th>
                  <td>{varText(v)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {run.message && (
          <>
            <div class="muted small">message</div>
            <div class="msg-text small">{run.message}</div>
          </>
        )}
        {brief && (
          <>
            <div class="muted small">brief (what the agent received first)</div>
            <pre class="output">{brief}</pre>
          </>
        )}
      </details>
      {sessions.length === 0 && <div class="muted">No session yet.</div>}
      {sessions.map((s) => (
        <div class="session" data-testid="session" data-session-index={s.index}>
          <div>
            <strong>session {s.index}</strong> <span class={'status-chip st-' + s.status}>{s.status}</span> <span class="muted small">
              {time(s.startedAt)} → {s.endedAt ? time(s.endedAt) : 'running'}
              {s.endedBy ? ` · ended by ${s.endedBy}` : ''}
            </span>
          </div>
          {s.endReason && <div class="small">{s.endReason}</div>}
          {s.prompt && (
            <details>
              <summary class="muted small">prompt</summary>
              <div class="msg-text small">{s.prompt}</div>
            </details>
          )}
          <table class="attempts small">
            <tbody>
              {(s.attempts ?? []).map((a) => (
                <tr data-testid="attempt">
                  <td>attempt {a.attemptNumber}</td>
                  <td class="muted">#{a.attemptIndexInSession} in session</td>
                  <td>{a.outcome ?? 'running'}</td>
                  <td class="muted">{time(a.startedAt)}</td>
                  <td class="muted">{a.endedAt ? time(a.endedAt) : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </div>
  );
}
