// The run's audit trail: every recorded action on it, live (its own resumable stream),
// virtualised and stuck to the newest record.

import { useEffect, useState } from 'preact/hooks';
import { apiStream } from '../../lib/api';
import { time } from '../../lib/format';
import { frameBatcher } from '../../lib/frame';
import { CursorGate } from '../../lib/sse';
import { VirtualList } from '../VirtualList';

const enc = encodeURIComponent;

interface AuditEvent {
  cursor: number;
  type: string;
  actor: string;
  at: string;
  data: Record<string, unknown>;
}

export function Audit({ runId }: { runId: string }) {
  const [events, setEvents] = useState<AuditEvent[]>([]);
  useEffect(() => {
    const list: AuditEvent[] = [];
    const gate = new CursorGate();
    const render = frameBatcher(() => setEvents([...list]));
    setEvents([]);
    const s = apiStream(`api/runs/${enc(runId)}/events/audit`, {
      resume: true,
      onEvent: (d: AuditEvent) => {
        if (!d || !gate.accept(d.cursor)) return;
        list.push(d);
        render();
      },
    });
    return () => s.close();
  }, [runId]);
  return (
    <VirtualList
      class="audit"
      attrs={{ 'data-testid': 'audit' }}
      count={events.length}
      estimate={30}
      stick
      version={events}
      keyOf={(i) => String(events[i].cursor)}
      render={(i) => {
        const e = events[i];
        return (
          <div class="audit-row small" data-testid="audit-event" data-type={e.type}>
            <span class="muted">{time(e.at)}</span> <strong>{e.type}</strong> <span class="muted">by {e.actor}</span>{' '}
            {e.data && Object.keys(e.data).length > 0 && <code class="muted">{JSON.stringify(e.data)}</code>}
          </div>
        );
      }}
      empty={<div class="empty">No audit records yet.</div>}
    />
  );
}
