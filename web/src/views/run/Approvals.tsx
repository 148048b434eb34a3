// Questions the run's agent waits on (tool permissions and the like), answered here. In
// the timeline tab it shows compact, above the timeline, while any is pending.

import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../../lib/api';
import { time } from '../../lib/format';
import type { RunDetail } from '../../lib/types';

const enc = encodeURIComponent;

export function Approvals({ run, compact }: { run: RunDetail; compact?: boolean }) {
  const [answered, setAnswered] = useState<Record<string, string>>({});
  const [err, setErr] = useState<string | null>(null);
  const pending = (run.pendingApprovals ?? []).filter((a) => !answered[a.approvalId]);
  // A question that comes back (the backend refused the answer) shows again.
  useEffect(() => setAnswered({}), [run.revision]);
  const answer = async (id: string, decision: 'approve' | 'deny') => {
    setErr(null);
    setAnswered((m) => ({ ...m, [id]: decision }));
    try {
      await api(`api/runs/${enc(run.runId)}/approvals/${enc(id)}`, { method: 'POST', body: { decision } });
    } catch (e) {
      setErr(errorText(e));
      setAnswered((m) => {
        const n = { ...m };
        delete n[id];
        return n;
      });
    }
  };
  return (
    <div class={compact ? 'approvals compact' : 'approvals pad'}>
      {!compact && pending.length === 0 && <div class="muted">No approval is pending.</div>}
      {pending.map((a) => (
        <div class="approval" data-testid="approval" data-approval-id={a.approvalId}>
          <div class="approval-q">
            <span class="badge warn">{a.kind}</span> <span data-testid="approval-summary">{a.summary}</span>
          </div>
          {a.details !== undefined && a.details !== null && <pre class="output small">{JSON.stringify(a.details, null, 2)}</pre>}
          <div class="buttons">
            <button class="primary" data-testid="approve" onClick={() => answer(a.approvalId, 'approve')}>
              Approve
            </button>
            <button class="danger" data-testid="deny" onClick={() => answer(a.approvalId, 'deny')}>
              Deny
            </button>
            <span class="muted small">asked {time(a.requestedAt)}</span>
          </div>
        </div>
      ))}
      {err && <div class="error">{err}</div>}
    </div>
  );
}
