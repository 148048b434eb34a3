// A run's browser live view (the newest frame from /events/browser, or why there is
// none: never a blank panel) and the box to ask the run's agent about it (AskBox).
import { useEffect, useState } from 'preact/hooks';
import { apiStream } from '../../lib/api';
import { time } from '../../lib/format';
import { frameBatcher } from '../../lib/frame';
import type { RunDetail } from '../../lib/types';
import { AskBox } from './AskBox';

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
    // Frames can come faster than the page paints: show the newest one per frame.
    const show = frameBatcher(() => setView(latest));
    const s = apiStream(`api/runs/${enc(run.runId)}/events/browser`, {
      onEvent: (d: BrowserFrame) => {
        if (!d || !d.type) return;
        latest = d;
        show();
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
