// Asks again and again, one request at a time: the next one is scheduled only once the
// last has answered, so a slow daemon never has requests piling up on it.

export interface PollOptions<T> {
  load: (signal: AbortSignal) => Promise<T>;
  intervalMs: number;
  onData: (value: T) => void;
  onError: (error: unknown) => void;
}

/** Starts at once; the returned function stops it and aborts a request in flight. */
export function poll<T>(o: PollOptions<T>): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let inFlight: AbortController | null = null;
  const tick = async () => {
    timer = undefined;
    const ctl = new AbortController();
    inFlight = ctl;
    try {
      const value = await o.load(ctl.signal);
      // An answer that arrives after stop belongs to a view that is gone.
      if (!stopped) o.onData(value);
    } catch (e) {
      if (!stopped) o.onError(e);
    }
    inFlight = null;
    if (!stopped) timer = setTimeout(tick, o.intervalMs);
  };
  void tick();
  return () => {
    stopped = true;
    if (timer !== undefined) clearTimeout(timer);
    inFlight?.abort();
  };
}
