// A box to ask the run's agent about its state without starting a turn
// (POST /api/runs/:id/ask; the question and answer go to the audit trail).
import { useState } from 'preact/hooks';
import { api, errorText } from '../../lib/api';
import type { RunDetail } from '../../lib/types';

const enc = encodeURIComponent;

export function AskBox({ run }: { run: RunDetail }) {
  const [question, setQuestion] = useState('');
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<string | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const ask = async (e: Event) => {
    e.preventDefault();
    if (!question.trim()) return;
    setBusy(true);
    setErr(null);
    setAnswer(null);
    try {
      const res = await api<{ answer: string }>(`api/runs/${enc(run.runId)}/ask`, { body: { question } });
      setAnswer(res.answer);
    } catch (x) {
      setErr(errorText(x));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="ask-box" onSubmit={ask} data-testid="ask-form">
      <label class="small muted" for="ask-question">
        Ask the agent about this run (no new turn; recorded in the audit trail)
      </label>
      <div class="row">
        <input
          id="ask-question"
          data-testid="ask-question"
          value={question}
          maxLength={16384}
          placeholder="What is on the page now?"
          onInput={(e) => setQuestion((e.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={busy || !question.trim()} data-testid="ask-submit">
          {busy ? 'Asking…' : 'Ask'}
        </button>
      </div>
      {answer !== null && (
        <div class="ask-answer" data-testid="ask-answer">
          {answer}
        </div>
      )}
      {err && (
        <div class="error" data-testid="ask-error">
          {err}
        </div>
      )}
    </form>
  );
}
