// A run's browser live view (the newest frame from /events/browser, or why there is
// none: never a blank panel) and a box to ask the run's agent about its state without
// starting a turn (POST /api/runs/:id/ask).
import { useEffect, useState } from 'preact/hooks';
import { api, apiStream, errorText } from '../lib/api';
import { time } from '../lib/format';
import type { RunDetail } from '../lib/types';

const enc = encodeURIComponent;

/** A page address short enough for a caption (data: URLs can be the whole page). */
function shortUrl(url: string | undefined): string {
  if (!url) return '';
  return url.length > 100 ? url.slice(0, 99) + '…' : url;
}

interface BrowserFrame {
  type: 'browser_frame' | 'browser_unavailable' | 'run_removed';
  seq?: number;
  at?: string;
  mime?: string;
  data?: string;
  url?: string;
  width?: number;
  height?: number;
  reason?: string;
}

export function BrowserTab({ run }: { run: RunDetail }) {
  const [view, setView] = useState<BrowserFrame | null>(null);
  useEffect(() => {
    setView(null);
    let latest: BrowserFrame | null = null;
    let scheduled = false;
    const s = apiStream(`api/runs/${enc(run.runId)}/events/browser`, {
      onEvent: (d: BrowserFrame) => {
        if (!d || !d.type) return;
        latest = d;
        // Frames can come faster than the page paints: show the newest one per frame.
        if (scheduled) return;
        scheduled = true;
        requestAnimationFrame(() => {
          scheduled = false;
          setView(latest);
        });
      },
    });
    return () => s.close();
  }, [run.runId]);

  return (
    <div class="pad browser-tab" data-testid="browser-tab">
      <div class="browser-view" data-testid="browser-view">
        {!view && <div class="muted browser-note">Connecting to the live view…</div>}
        {view?.type === 'browser_frame' && view.data && (
          <figure>
            <img
              data-testid="browser-frame"
              data-seq={view.seq}
              src={`data:${view.mime ?? 'image/jpeg'};base64,${view.data}`}
              width={view.width}
              height={view.height}
              alt={`The browser at ${view.url ?? 'an unknown page'}`}
            />
            <figcaption class="muted small">
              <span title={view.url}>{shortUrl(view.url)}</span> · {time(view.at ?? '')}
            </figcaption>
          </figure>
        )}
        {view && view.type !== 'browser_frame' && (
          <div class="browser-note" data-testid="browser-unavailable">
            <strong>No live view.</strong> <span>{view.type === 'run_removed' ? 'The run was deleted.' : view.reason}</span>
          </div>
        )}
      </div>
      <AskBox run={run} />
    </div>
  );
}

function AskBox({ run }: { run: RunDetail }) {
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
