// Folds a run's timeline events into the logical items the dashboard shows: the deltas of
// one message become one message, a tool call's start, output and end one tool item.

export interface TimelineEvent {
  runId?: string;
  cursor: number | null;
  kind: string;
  attemptNumber: number | null;
  at: string;
  payload: Record<string, any>;
  ephemeral?: boolean;
  conflated?: boolean;
}

export type ItemKind =
  | 'message'
  | 'reasoning'
  | 'tool'
  | 'notice'
  | 'usage'
  | 'plan'
  | 'file_change'
  | 'approval'
  | 'session'
  | 'attempt'
  | 'other';

export interface TimelineItem {
  key: string;
  kind: ItemKind;
  /** The source event kind of the item's last event. */
  eventKind: string;
  /** Cursor of the item's last durable event; null while only ephemeral events built it. */
  cursor: number | null;
  attempt: number | null;
  at: string;
  /** message / reasoning text, tool output. */
  text: string;
  /** True once a durable event completed the item (message.completed, tool.completed, ...). */
  done: boolean;
  payload: Record<string, any>;
  /** Tool: the started event's payload. */
  started?: Record<string, any>;
  /** Bumped on every change, so a view can tell a changed item. */
  rev: number;
  /** After a reconnect: the next delta carries the whole text so far, so it replaces. */
  replaceNext?: boolean;
}

function strOr(v: unknown, d = ''): string {
  return typeof v === 'string' ? v : d;
}

export class TimelineModel {
  items: TimelineItem[] = [];
  private byKey = new Map<string, number>();
  /** The open (no itemId) message / reasoning per attempt. */
  private anon = new Map<string, string>();
  private seq = 0;
  version = 0;

  get count(): number {
    return this.items.length;
  }

  private add(item: Omit<TimelineItem, 'rev'>): TimelineItem {
    const it = { ...item, rev: 1 } as TimelineItem;
    this.byKey.set(it.key, this.items.length);
    this.items.push(it);
    return it;
  }

  private get(key: string): TimelineItem | undefined {
    const i = this.byKey.get(key);
    return i === undefined ? undefined : this.items[i];
  }

  /**
   * A stream reconnected: the daemon sends the text of an item still streaming again, as
   * one merged delta, so that delta replaces what the item had. An item whose stream
   * ended meanwhile keeps its text.
   */
  resetOpenDeltas(): void {
    for (const it of this.items) {
      if (!it.done && (it.kind === 'message' || it.kind === 'reasoning' || it.kind === 'tool')) it.replaceNext = true;
    }
    this.version++;
  }

  /** The item the newest delta of each kind and attempt went to, while it is open. */
  private lastOpen = new Map<string, string>();

  private textKey(prefix: string, e: TimelineEvent, completing: boolean): string {
    const a = String(e.attemptNumber ?? '');
    const slot = `${prefix}:${a}`;
    const id = e.payload?.itemId;
    let key: string;
    if (typeof id === 'string' && id) {
      key = `${prefix}:${a}:${id}`;
    } else {
      key = this.anon.get(slot) ?? '';
      if (!key) {
        key = `${prefix}:${a}:#${++this.seq}`;
        if (!completing) this.anon.set(slot, key);
      }
      if (completing) this.anon.delete(slot);
    }
    if (!completing) {
      this.lastOpen.set(slot, key);
      return key;
    }
    // A whole message for an item we have not seen: its deltas may have named it
    // otherwise (or not at all); it completes the open one.
    const open = this.lastOpen.get(slot);
    this.lastOpen.delete(slot);
    if (!this.byKey.has(key) && open && open !== key) {
      const i = this.byKey.get(open);
      if (i !== undefined && !this.items[i].done) {
        this.byKey.set(key, i);
        key = open;
      }
    }
    if (this.anon.get(slot) === key) this.anon.delete(slot);
    return key;
  }

  private text(kind: 'message' | 'reasoning', e: TimelineEvent, delta: boolean): void {
    const key = this.textKey(kind, e, !delta);
    const piece = strOr(e.payload?.text);
    let it = this.get(key);
    if (!it) {
      it = this.add({ key, kind, eventKind: e.kind, cursor: null, attempt: e.attemptNumber, at: e.at, text: '', done: false, payload: e.payload ?? {} });
    } else if (it.done && delta) {
      return; // a late delta of a message we already have whole
    }
    if (delta) {
      it.text = it.replaceNext ? piece : it.text + piece;
      it.replaceNext = false;
    } else {
      it.text = piece;
      it.done = true;
      it.replaceNext = false;
      it.payload = e.payload ?? {};
    }
    if (e.cursor !== null) it.cursor = e.cursor;
    it.eventKind = e.kind;
    it.rev++;
  }

  private tool(e: TimelineEvent): void {
    const p = e.payload ?? {};
    const id = strOr(p.toolCallId) || `#${++this.seq}`;
    const key = `tool:${e.attemptNumber ?? ''}:${id}`;
    let it = this.get(key);
    const kind: ItemKind = p.tool === 'file_change' ? 'file_change' : 'tool';
    if (!it) {
      it = this.add({ key, kind, eventKind: e.kind, cursor: null, attempt: e.attemptNumber, at: e.at, text: '', done: false, payload: {} });
    }
    if (e.kind === 'tool.started') {
      it.started = p;
      if (!it.done) it.payload = { ...it.payload, ...p };
    } else if (e.kind === 'tool.completed') {
      it.payload = { ...(it.started ?? {}), ...p };
      if (typeof p.output === 'string') it.text = p.output;
      it.done = true;
    } else if (!it.done) {
      // tool.output.delta
      it.text = it.replaceNext ? strOr(p.text) : it.text + strOr(p.text);
      it.replaceNext = false;
    } else {
      return;
    }
    if (p.tool === 'file_change') it.kind = 'file_change';
    if (e.cursor !== null) it.cursor = e.cursor;
    it.eventKind = e.kind;
    it.rev++;
  }

  /** Items that replace the previous one of the same attempt (plan, usage, diff). */
  private replacing(kind: ItemKind, tag: string, e: TimelineEvent): void {
    const key = `${tag}:${e.attemptNumber ?? ''}`;
    let it = this.get(key);
    if (!it) {
      it = this.add({ key, kind, eventKind: e.kind, cursor: null, attempt: e.attemptNumber, at: e.at, text: '', done: false, payload: {} });
    }
    it.payload = e.payload ?? {};
    it.text = tag === 'diff' ? strOr(e.payload?.diff) : '';
    it.done = e.cursor !== null;
    if (e.cursor !== null) it.cursor = e.cursor;
    it.at = e.at;
    it.eventKind = e.kind;
    it.rev++;
  }

  private single(kind: ItemKind, e: TimelineEvent): void {
    const key = e.cursor !== null ? `c:${e.cursor}` : `e:${++this.seq}`;
    if (this.byKey.has(key)) return;
    this.add({ key, kind, eventKind: e.kind, cursor: e.cursor, attempt: e.attemptNumber, at: e.at, text: '', done: true, payload: e.payload ?? {} });
  }

  apply(e: TimelineEvent): void {
    this.version++;
    switch (e.kind) {
      case 'message.delta':
        return this.text('message', e, true);
      case 'message.completed':
        return this.text('message', e, false);
      case 'reasoning.delta':
        return this.text('reasoning', e, true);
      case 'reasoning':
        return this.text('reasoning', e, false);
      case 'tool.started':
      case 'tool.completed':
      case 'tool.output.delta':
      case 'tool.output_delta':
        return this.tool(e);
      case 'plan':
        return this.replacing('plan', 'plan', e);
      case 'usage':
        return this.replacing('usage', 'usage', e);
      case 'diff':
        return this.replacing('file_change', 'diff', e);
      case 'notice':
        return this.single('notice', e);
      case 'approval.request':
        return this.single('approval', e);
      case 'attempt.started':
      case 'attempt.finished':
        return this.single('attempt', e);
      case 'run.finished':
      case 'session.detached':
      case 'session.checkpoint':
        return this.single('session', e);
      default:
        return this.single('other', e);
    }
  }
}

/** What the run view holds of a run's timeline: the model, and paging backwards through it. */
export interface TimelineState {
  model: TimelineModel;
  version: number;
  /** Older events exist above the first one held; loadOlder() fetches the next page. */
  hasOlder: boolean;
  loadingOlder: boolean;
  loadOlder: () => void;
}
