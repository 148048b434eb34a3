// The board's data: every run's summary, listed once and kept current by the summary
// stream. The stream has no ids (it re-publishes a changed run as it is now), so after
// each (re)connect the runs are listed again, and the newer revision of a run wins.

import { api, apiStream, type ApiStreamOptions } from './api';
import type { RunSummary } from './types';

type Listener = () => void;

export type ListPage = (cursor: string | null) => Promise<{ runs: RunSummary[]; nextCursor: string | null }>;
export type OpenStream = (opts: ApiStreamOptions) => { close(): void };

// The first page is small, so the board shows its first rows before the rest (up to
// 500 a page) is listed.
const listPage: ListPage = (cursor) => api('api/runs', { query: { includeArchived: true, limit: cursor ? 500 : 100, cursor: cursor ?? undefined } });
const openSummaryStream: OpenStream = (opts) => apiStream('api/events/run-summaries', opts);

export class SummaryStore {
  runs = new Map<string, RunSummary>();
  version = 0;
  loading = true;
  error: string | null = null;
  private listeners = new Set<Listener>();
  private scheduled = false;
  private stream: { close(): void } | null = null;
  private listing = 0;

  constructor(
    private readonly listPage_: ListPage = listPage,
    private readonly open_: OpenStream = openSummaryStream,
  ) {}

  subscribe(l: Listener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  private changed(): void {
    this.version++;
    if (this.scheduled) return;
    this.scheduled = true;
    const fire = () => {
      if (!this.scheduled) return;
      this.scheduled = false;
      this.listeners.forEach((l) => l());
    };
    if (typeof requestAnimationFrame === 'function') requestAnimationFrame(fire);
    // A hidden tab runs no animation frames, and the notifier (lib/notifier.ts) must
    // still hear of a run that ends there: a timer fires what the frame did not.
    setTimeout(fire, typeof requestAnimationFrame === 'function' ? 250 : 16);
  }

  /** Keeps the summary with the higher revision. */
  upsert(s: RunSummary): void {
    const old = this.runs.get(s.runId);
    if (old && (old.revision ?? 0) > (s.revision ?? 0)) return;
    this.runs.set(s.runId, s);
    this.changed();
  }

  remove(runId: string): void {
    if (this.runs.delete(runId)) this.changed();
  }

  start(): void {
    if (this.stream) return;
    this.stream = this.open_({
      onOpen: () => void this.list(),
      onEvent: (d) => {
        if (d?.type === 'summary_upsert' && d.summary) {
          this.touchedDuringList.add(d.summary.runId);
          this.upsert(d.summary);
        }
        else if (d?.type === 'summary_removed' && d.runId) {
          this.removedDuringList.add(d.runId);
          this.remove(d.runId);
        }
      },
    });
  }

  stop(): void {
    this.stream?.close();
    this.stream = null;
  }

  private removedDuringList = new Set<string>();
  private touchedDuringList = new Set<string>();

  /** Lists every run (archived too; the board filters), page by page. */
  async list(): Promise<void> {
    const token = ++this.listing;
    this.removedDuringList.clear();
    this.touchedDuringList.clear();
    const seen = new Set<string>();
    let cursor: string | null = null;
    try {
      do {
        const page = await this.listPage_(cursor);
        if (token !== this.listing) return;
        for (const r of page.runs) {
          seen.add(r.runId);
          if (!this.removedDuringList.has(r.runId)) this.upsert(r);
        }
        cursor = page.nextCursor;
      } while (cursor);
      // Runs that were deleted while the stream was down.
      for (const id of [...this.runs.keys()]) if (!seen.has(id) && !this.touchedDuringList.has(id)) this.runs.delete(id);
      this.error = null;
    } catch (e) {
      this.error = e instanceof Error ? e.message : String(e);
    }
    this.loading = false;
    this.changed();
  }
}

export const summaries = new SummaryStore();
