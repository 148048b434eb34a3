// One thing a view loads from the API (a diff, a listing, search results): its answer, its
// error and whether a request is out, with the rules every tab used to repeat by hand.
// A newer load wins (an older answer that lands late is dropped and its request aborted);
// a new load clears the last error but keeps the last answer on screen until the new one
// lands. `useResource` is the hook over it.

import { useEffect, useRef, useState } from 'preact/hooks';

export interface ResourceState<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
}

export type Load<T> = (signal: AbortSignal) => Promise<T>;

export interface ResourceOptions {
  /** Waits this long before asking (typing in a search box); a newer load cancels the wait. */
  delayMs?: number;
  /** Drops the last answer when a load fails (a stale diff must not pass for the current one). */
  clearOnError?: boolean;
  /** Drops the last answer when what is loaded changes (another assignment), not on reload. */
  clearOnChange?: boolean;
}

const EMPTY: ResourceState<never> = { data: null, error: null, loading: false };

export class Resource<T> {
  private state: ResourceState<T> = EMPTY;
  private generation = 0;
  private inFlight: AbortController | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private current: Load<T> | null = null;
  private waiting: (() => void) | null = null;
  private stopped = false;

  constructor(
    private readonly onChange: (s: ResourceState<T>) => void,
    private readonly options: ResourceOptions = {},
  ) {}

  get(): ResourceState<T> {
    return this.state;
  }

  /** Loads with `load` (after the delay, when one is set); null forgets the answer. */
  set(load: Load<T> | null): Promise<void> {
    this.current = load;
    if (!load) {
      this.cancel();
      this.update(EMPTY);
      return Promise.resolve();
    }
    if (this.options.clearOnChange) this.state = { ...this.state, data: null };
    return this.start(load, this.options.delayMs ?? 0);
  }

  /** The current load again, at once. Resolves when it has answered (or was superseded). */
  reload(): Promise<void> {
    return this.current ? this.start(this.current, 0) : Promise.resolve();
  }

  /** The view is gone: nothing more is asked or reported. */
  stop(): void {
    this.stopped = true;
    this.cancel();
  }

  private cancel(): void {
    this.generation++;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    // A load cancelled while it waited out its delay still settles its caller's promise.
    this.waiting?.();
    this.waiting = null;
    this.inFlight?.abort();
    this.inFlight = null;
  }

  private start(load: Load<T>, delayMs: number): Promise<void> {
    this.cancel();
    const gen = this.generation;
    this.update({ ...this.state, error: null, loading: true });
    const run = async () => {
      this.timer = undefined;
      const ctl = new AbortController();
      this.inFlight = ctl;
      try {
        const data = await load(ctl.signal);
        if (gen === this.generation) this.update({ data, error: null, loading: false });
      } catch (error) {
        if (gen === this.generation) this.update({ data: this.options.clearOnError ? null : this.state.data, error, loading: false });
      } finally {
        if (gen === this.generation) this.inFlight = null;
      }
    };
    if (delayMs <= 0) return run();
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.timer = setTimeout(() => {
        this.waiting = null;
        void run().then(resolve);
      }, delayMs);
    });
  }

  private update(s: ResourceState<T>): void {
    if (this.stopped) return;
    this.state = s;
    this.onChange(s);
  }
}

/**
 * Loads `load` whenever `deps` change (null: nothing to load, no answer) and again on
 * `reload()`. `load` is read when deps change, so it may close over the current props;
 * `options` are read on the first render only.
 */
export function useResource<T>(load: Load<T> | null, deps: unknown[], options: ResourceOptions = {}): ResourceState<T> & { reload: () => Promise<void> } {
  const [state, setState] = useState<ResourceState<T>>(EMPTY);
  const resource = useRef<Resource<T> | null>(null);
  if (!resource.current) resource.current = new Resource<T>(setState, options);
  const r = resource.current;
  useEffect(() => {
    void r.set(load);
  }, deps);
  useEffect(() => () => r.stop(), []);
  return { ...state, reload: () => r.reload() };
}
