// One daemon of the store: name, state, live runs against capacity, labels, URL,
// last heartbeat, version, host, pid and start.

import { time } from '../../lib/format';
import { capacityText, heardText, isFull, safeHref, stateBadge } from '../../lib/members';
import type { Member } from '../../lib/types';

export function MemberRow({ m }: { m: Member }) {
  const badge = stateBadge(m.state);
  const href = safeHref(m.advertiseUrl);
  return (
    <li class={'member' + (m.self ? ' self' : '')} data-testid="members-row" data-daemon-id={m.daemonId} data-self={String(m.self)}>
      <div class="member-main">
        <strong data-testid="member-name">{m.name}</strong>
        {m.self && (
          <span class="badge" data-testid="member-self" title="the daemon serving this page">
            this one
          </span>
        )}
        <span class={'member-state ms-' + badge.tone} data-testid="member-state" data-state={m.state} title={badge.title}>
          {badge.label}
        </span>
        <span class={'pill' + (isFull(m) ? ' warn-text' : '')} title={m.capacity ? 'live runs / capacity' : 'live runs (no limit)'}>
          runs <span data-testid="member-runs">{capacityText(m.liveRuns, m.capacity)}</span>
        </span>
        {m.labels.map((l) => (
          <span key={l} class="label-chip" data-testid="member-label">
            {l}
          </span>
        ))}
      </div>
      <div class="member-sub small">
        {href ? (
          <a class="mono" data-testid="member-url" href={href} target="_blank" rel="noopener noreferrer">
            {m.advertiseUrl}
          </a>
        ) : (
          <span class="mono" data-testid="member-url">
            {m.advertiseUrl}
          </span>
        )}
        <span data-testid="member-heartbeat" title={time(m.heartbeatAt)}>
          {heardText(m.heartbeatAgeMs)}
        </span>
        <span>v{m.version}</span>
      </div>
      <div class="member-sub small muted" data-testid="member-meta">
        <span class="mono">{m.host}</span>
        <span>pid {m.pid}</span>
        <span>started {time(m.startedAt)}</span>
      </div>
    </li>
  );
}
