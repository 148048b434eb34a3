// Follow-ups queued while the run works: listed, added and removed.

import { useState } from 'preact/hooks';
import { api, errorText } from '../../lib/api';
import { time } from '../../lib/format';
import type { RunDetail } from '../../lib/types';

const enc = encodeURIComponent;

export function Queue({ run, onRun }: { run: RunDetail; onRun: (r: RunDetail) => void }) {
  const [text, setText] = useState('');
  const [err, setErr] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [removed, setRemoved] = useState<Set<string>>(new Set());
  const c = run.capabilities ?? {};
  const items = (run.queuedResumeMessages ?? []).filter((m) => !removed.has(m.id));
  const add = async () => {
    if (!text.trim()) return;
    setBusy(true);
    setErr(null);
    try {
      const res = await api(`api/runs/${enc(run.runId)}/queued-resume-messages`, { method: 'POST', body: { text } });
      if (res?.run) onRun(res.run);
      setText('');
    } catch (e) {
      setErr(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const remove = async (id: string) => {
    setErr(null);
    setRemoved((s) => new Set(s).add(id));
    try {
      await api(`api/runs/${enc(run.runId)}/queued-resume-messages/${enc(id)}`, { method: 'DELETE' });
    } catch (e) {
      setErr(errorText(e));
      setRemoved((s) => {
        const n = new Set(s);
        n.delete(id);
        return n;
      });
    }
  };
  return (
    <div class="pad queue">
      <p class="muted small">Follow-ups queued while the run works; they start its next session together when this one ends.</p>
      {items.length === 0 && <div class="muted">Nothing queued.</div>}
      {items.map((m) => (
        <div class="queued" data-testid="queued-item" data-message-id={m.id}>
          <div class="msg-text">{m.text}</div>
          <div class="buttons">
            <span class="muted small">
              {time(m.createdAt)} · {'actor' in m.source ? m.source.actor : m.source.kind}
            </span>
            <button data-testid="queue-remove" disabled={!c.canRemoveQueuedMessage} onClick={() => remove(m.id)}>
              Remove
            </button>
          </div>
        </div>
      ))}
      <textarea data-testid="queue-input" rows={3} value={text} placeholder={c.canQueueMessage ? 'Queue a follow-up…' : 'Only a running run takes queued messages'} onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)} />
      <div class="buttons">
        <button data-testid="queue-add" class="primary" disabled={busy || !text.trim()} onClick={add}>
          Queue
        </button>
      </div>
      {err && <div class="error">{err}</div>}
    </div>
  );
}
