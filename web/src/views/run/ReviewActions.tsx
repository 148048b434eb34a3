// What picked lines become: a task of the run, or a message queued for its next session,
// either one quoting them (`path:start-end` and the lines, lib/lineSelection.ts).

import { useState } from 'preact/hooks';
import { api, errorText } from '../../lib/api';
import { reviewTitle } from '../../lib/lineSelection';

const enc = encodeURIComponent;

export function ReviewActions({ runId, quote, onClear }: { runId: string; quote: string; onClear: () => void }) {
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const [note, setNote] = useState('');
  const text = note.trim() ? `${note.trim()}\n\n${quote}` : quote;
  const send = async (what: 'task' | 'message') => {
    setBusy(true);
    setErr(null);
    setDone(null);
    try {
      if (what === 'task') {
        const r = await api(`api/runs/${enc(runId)}/tasks`, { method: 'POST', body: { title: reviewTitle(quote), body: text } });
        setDone(`Task ${r.task?.id ?? ''} created.`);
      } else {
        await api(`api/runs/${enc(runId)}/queued-resume-messages`, { method: 'POST', body: { text } });
        setDone('Queued for the run.');
      }
      setNote('');
    } catch (e) {
      setErr(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="review-actions" data-testid="review-actions">
      <div class="toolbar small">
        <strong class="mono" data-testid="review-range">
          {quote.split('\n', 1)[0]}
        </strong>
        <input data-testid="review-note" placeholder="Add a note (optional)" value={note} onInput={(e) => setNote((e.currentTarget as HTMLInputElement).value)} />
        <button data-testid="review-create-task" disabled={busy} onClick={() => send('task')}>
          Create task
        </button>
        <button data-testid="review-queue-message" disabled={busy} onClick={() => send('message')} title="Sent with the run's next session">
          Queue message
        </button>
        <button class="icon" onClick={onClear} title="Clear the selection">
          ✕
        </button>
      </div>
      {done && (
        <div class="muted small" data-testid="review-result">
          {done}
        </div>
      )}
      {err && <div class="error">{err}</div>}
    </div>
  );
}
