// Index math of the virtual lists: offsets of variable-height rows, the row at a scroll
// position and the range of rows to render.

/** offsets[i] is the top of row i; offsets[count] the total height. */
export function computeOffsets(count: number, heightOf: (i: number) => number): Float64Array {
  const out = new Float64Array(count + 1);
  let y = 0;
  for (let i = 0; i < count; i++) {
    out[i] = y;
    y += heightOf(i);
  }
  out[count] = y;
  return out;
}

/** The row that contains y (clamped to [0, count-1]); 0 for an empty list. */
export function indexAt(offsets: Float64Array, y: number): number {
  const count = offsets.length - 1;
  if (count <= 0) return 0;
  if (y <= 0) return 0;
  if (y >= offsets[count]) return count - 1;
  let lo = 0;
  let hi = count - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (offsets[mid] <= y) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Rows [start, end) to render for a viewport, with overscan rows on each side. */
export function visibleRange(offsets: Float64Array, scrollTop: number, viewport: number, overscan = 4): { start: number; end: number } {
  const count = offsets.length - 1;
  if (count <= 0) return { start: 0, end: 0 };
  const first = indexAt(offsets, scrollTop);
  const last = indexAt(offsets, scrollTop + Math.max(viewport, 1) - 0.001);
  return { start: Math.max(0, first - overscan), end: Math.min(count, last + 1 + overscan) };
}

/** Measured heights by row key, with an estimate for rows not measured yet. */
export class HeightCache {
  private heights = new Map<string, number>();
  constructor(public estimate: number) {}
  get(key: string): number {
    return this.heights.get(key) ?? this.estimate;
  }
  /** Records a measured height; true when it changed. */
  set(key: string, h: number): boolean {
    if (this.heights.get(key) === h) return false;
    this.heights.set(key, h);
    return true;
  }
  get size(): number {
    return this.heights.size;
  }
}

/** Whether a scroller is at (or within slack of) its bottom. */
export function atBottom(scrollTop: number, clientHeight: number, scrollHeight: number, slack = 8): boolean {
  return scrollTop + clientHeight >= scrollHeight - slack;
}
