// The run's timeline as the run view holds it: history pages and the live timeline stream
// folded into one TimelineModel (timeline.ts).

import { useEffect, useRef, useState } from 'preact/hooks';
import { api, apiStream } from './api';
import { frameBatcher } from './frame';
import { CursorGate } from './sse';
import { TimelineModel, type TimelineEvent, type TimelineState } from './timeline';
import type { RunDetail } from './types';

const enc = encodeURIComponent;

/** Durable events per history page (the daemon allows up to 5000); the first page, which
 * the first screen waits for, is smaller. */
const TIMELINE_PAGE = 1000;
const TIMELINE_FIRST_PAGE = 300;

interface HistoryPage {
  events: TimelineEvent[];
  firstCursor: number | null;
  lastCursor: number;
}

/**
 * A number that grows each time the run was reset. A reset deletes the run's timeline (its
 * cursors go on growing), so the timeline is read again when it changes; a reset shows as
 * the run's attempt count going down.
 */
export function useResetEpoch(run: RunDetail | null): number {
  const [epoch, setEpoch] = useState(0);
  const attempts = useRef<number | null>(null);
  useEffect(() => {
    if (!run) return;
    const n = run.totalAttemptCount ?? 0;
    if (attempts.current !== null && n < attempts.current) setEpoch((e) => e + 1);
    attempts.current = n;
  }, [run?.totalAttemptCount]);
  return epoch;
}

/**
 * The run's timeline, opened at its end: the newest page of history first (so a run with
 * 100,000 events shows its last screen at once), then the live stream from that page's
 * last cursor, and older pages on request. Prepending rebuilds the model from the held
 * events, since a tool or message may span the page boundary.
 */
export function useTimeline(runId: string, epoch: number): TimelineState {
  const model = useRef<TimelineModel>(new TimelineModel());
  const [version, setVersion] = useState(0);
  const [hasOlder, setHasOlder] = useState(false);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const loader = useRef<() => void>(() => {});
  useEffect(() => {
    let cancelled = false;
    let m = new TimelineModel();
    model.current = m;
    const gate = new CursorGate();
    // Durable events held, in cursor order, and the ephemeral ones since the newest of them:
    // what a rebuild re-applies.
    let durable: TimelineEvent[] = [];
    let sinceDurable: TimelineEvent[] = [];
    let first: number | null = null;
    let stream: { close(): void } | null = null;
    const bump = frameBatcher(() => setVersion((v) => v + 1));
    const base = `api/runs/${enc(runId)}/timeline`;
    setVersion((v) => v + 1);
    setHasOlder(false);

    loader.current = async () => {
      if (first === null) return;
      setLoadingOlder(true);
      try {
        const page = await api<HistoryPage>(`${base}?before=${first}&limit=${TIMELINE_PAGE}`);
        if (cancelled) return;
        durable = [...page.events, ...durable];
        first = page.firstCursor;
        const rebuilt = new TimelineModel();
        for (const e of durable) rebuilt.apply(e);
        for (const e of sinceDurable) rebuilt.apply(e);
        m = rebuilt;
        model.current = rebuilt;
        setHasOlder(page.events.length === TIMELINE_PAGE);
        setVersion((v) => v + 1);
      } finally {
        if (!cancelled) setLoadingOlder(false);
      }
    };

    (async () => {
      let latest: HistoryPage | null = null;
      try {
        latest = await api<HistoryPage>(`${base}?before=latest&limit=${TIMELINE_FIRST_PAGE}`);
      } catch {
        latest = null; // the stream says why (gone, unauthenticated) or replays everything
      }
      if (cancelled) return;
      if (latest) {
        for (const e of latest.events) {
          gate.accept(e.cursor);
          durable.push(e);
          m.apply(e);
        }
        first = latest.firstCursor;
        setHasOlder(latest.events.length === TIMELINE_FIRST_PAGE);
        bump();
      }
      stream = apiStream(`api/runs/${enc(runId)}/events/timeline`, {
        resume: true,
        initialLastEventId: gate.last > 0 ? String(gate.last) : undefined,
        onOpen: (reconnect) => {
          if (reconnect) {
            m.resetOpenDeltas();
            sinceDurable = [];
            bump();
          }
        },
        onEvent: (d: TimelineEvent) => {
          if (!d || typeof d.kind !== 'string') return;
          if (!gate.accept(d.cursor)) return;
          if (d.cursor === null || d.cursor === undefined) {
            sinceDurable.push(d);
          } else {
            durable.push(d);
            sinceDurable = [];
          }
          m.apply(d);
          bump();
        },
      });
    })();
    return () => {
      cancelled = true;
      stream?.close();
    };
  }, [runId, epoch]);
  return {
    model: model.current,
    version,
    hasOlder,
    loadingOlder,
    loadOlder: () => loader.current(),
  };
}
