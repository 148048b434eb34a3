// The live timeline of a run: coalesced items, virtualised with measured heights,
// following the newest item unless the user scrolled up.

import { useRef, useState } from 'preact/hooks';
import type { TimelineState } from '../../lib/timeline';
import { scrollToBottom, VirtualList } from '../VirtualList';
import { TimelineItemView } from './TimelineItem';

export function Timeline({ timeline }: { timeline: TimelineState }) {
  const { model, version } = timeline;
  const [stuck, setStuck] = useState(true);
  const scroller = useRef<HTMLDivElement>(null);
  const items = model.items;
  return (
    <div class="timeline-wrap">
      {timeline.hasOlder && (
        <button class="load-older" data-testid="load-older" disabled={timeline.loadingOlder} onClick={timeline.loadOlder}>
          {timeline.loadingOlder ? 'Loading earlier events…' : 'Load earlier events'}
        </button>
      )}
      <VirtualList
        class="timeline"
        attrs={{ 'data-testid': 'timeline', 'data-count': items.length }}
        scrollerRef={scroller}
        count={items.length}
        estimate={44}
        stick
        version={version}
        onStuck={setStuck}
        keyOf={(i) => items[i].key}
        render={(i) => <TimelineItemView item={items[i]} />}
        empty={<div class="empty">No events yet.</div>}
      />
      {!stuck && (
        <button class="jump" data-testid="jump-latest" onClick={() => scrollToBottom(scroller.current)}>
          ↓ Jump to latest
        </button>
      )}
    </div>
  );
}
