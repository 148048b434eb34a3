// A virtual list: renders only the rows in view. Rows of variable height are measured
// once rendered (ResizeObserver) and their heights cached by key; until then an estimate
// stands in. With `stick`, the list follows new rows while the user is at the bottom.

import type { ComponentChildren, Ref } from 'preact';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { atBottom, computeOffsets, HeightCache, indexAt, visibleRange } from '../lib/virtual';

export interface VirtualListProps {
  count: number;
  keyOf: (i: number) => string;
  render: (i: number) => ComponentChildren;
  estimate: number;
  /** All rows have this height: nothing is measured. */
  fixed?: boolean;
  stick?: boolean;
  /** Changes whenever rows change, so the list renders again. */
  version?: unknown;
  class?: string;
  attrs?: Record<string, string | number>;
  onStuck?: (stuck: boolean) => void;
  scrollerRef?: Ref<HTMLDivElement>;
  overscan?: number;
  empty?: ComponentChildren;
}

export function VirtualList(props: VirtualListProps) {
  const { count, keyOf, render, estimate, fixed, stick } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const cache = useRef(new HeightCache(estimate));
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);
  const [measureTick, setMeasureTick] = useState(0);
  const stuck = useRef(true);
  const observer = useRef<ResizeObserver | null>(null);
  const pending = useRef(false);
  const observed = useRef(new Set<HTMLElement>());
  const offsetsRef = useRef<Float64Array>(new Float64Array(1));

  const setRef = useCallback((el: HTMLDivElement | null) => {
    (scroller as { current: HTMLDivElement | null }).current = el;
    const r = props.scrollerRef as { current: HTMLDivElement | null } | undefined;
    if (r && typeof r === 'object') r.current = el;
  }, []);

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setViewport(el.clientHeight));
    ro.observe(el);
    setViewport(el.clientHeight);
    if (!fixed) {
      observer.current = new ResizeObserver((entries) => {
        let changed = false;
        // Rows above the first one in view that change height would move what the user
        // reads: keep it in place by scrolling by as much (unless following the bottom).
        const top = scroller.current?.scrollTop ?? 0;
        const firstInView = indexAt(offsetsRef.current, top);
        let shift = 0;
        for (const en of entries) {
          const t = en.target as HTMLElement;
          const k = t.dataset.vkey;
          if (!k || !t.isConnected) continue;
          const before = cache.current.get(k);
          if (cache.current.set(k, t.offsetHeight)) {
            changed = true;
            if (Number(t.dataset.vidx) < firstInView) shift += t.offsetHeight - before;
          }
        }
        if (shift && scroller.current && !(stick && stuck.current)) scroller.current.scrollTop += shift;
        if (changed && !pending.current) {
          pending.current = true;
          requestAnimationFrame(() => {
            pending.current = false;
            setMeasureTick((n) => n + 1);
          });
        }
      });
    }
    return () => {
      ro.disconnect();
      observer.current?.disconnect();
    };
  }, []);

  const offsets = useMemo(
    () => computeOffsets(count, fixed ? () => estimate : (i) => cache.current.get(keyOf(i))),
    [count, props.version, measureTick, fixed, estimate],
  );
  offsetsRef.current = offsets;
  const total = offsets[count] ?? 0;
  const { start, end } = visibleRange(offsets, scrollTop, viewport, props.overscan ?? 6);

  useLayoutEffect(() => {
    // Rows that left the window are not watched any longer.
    for (const r of observed.current) {
      if (!r.isConnected) {
        observer.current?.unobserve(r);
        observed.current.delete(r);
      }
    }
    const el = scroller.current;
    if (stick && stuck.current && el) {
      el.scrollTop = el.scrollHeight;
    }
  });

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    setScrollTop(el.scrollTop);
    if (stick) {
      const s = atBottom(el.scrollTop, el.clientHeight, el.scrollHeight);
      if (s !== stuck.current) {
        stuck.current = s;
        props.onStuck?.(s);
      }
    }
  };

  const measureRef = (el: HTMLDivElement | null) => {
    if (el && observer.current && !observed.current.has(el)) {
      observed.current.add(el);
      observer.current.observe(el);
    }
  };

  const rows: ComponentChildren[] = [];
  for (let i = start; i < end; i++) {
    const k = keyOf(i);
    rows.push(
      <div key={k} data-vkey={k} data-vidx={i} ref={fixed ? undefined : measureRef} class="vrow" style={fixed ? { height: `${estimate}px` } : undefined}>
        {render(i)}
      </div>,
    );
  }
  return (
    <div ref={setRef} class={'vscroll ' + (props.class ?? '')} onScroll={onScroll} {...(props.attrs ?? {})}>
      {count === 0 && props.empty}
      <div class="vspacer" style={{ height: `${total}px` }}>
        <div class="vwindow" style={{ transform: `translateY(${offsets[start] ?? 0}px)` }}>
          {rows}
        </div>
      </div>
    </div>
  );
}

/** Scrolls a virtual list's scroller so that row i (fixed height h) is in view. */
export function scrollRowIntoView(el: HTMLElement | null, i: number, h: number, headerOffset = 0): void {
  if (!el) return;
  const top = i * h + headerOffset;
  if (top < el.scrollTop) el.scrollTop = top;
  else if (top + h > el.scrollTop + el.clientHeight) el.scrollTop = top + h - el.clientHeight;
}

/** Scrolls to the bottom and sticks there again. */
export function scrollToBottom(el: HTMLElement | null): void {
  if (el) el.scrollTop = el.scrollHeight;
}
