// The daemons serving this store (GET /api/daemons), asked again every 2 s while the view
// is shown and the tab is visible.

import { useEffect, useState } from 'preact/hooks';
import { errorText, fetchMembers } from '../lib/api';
import { time } from '../lib/format';
import { capacityText, heardText, isFull, MEMBERS_POLL_MS, safeHref, sortMembers, stateBadge, summaryText } from '../lib/members';
import { poll } from '../lib/poll';
import type { Member } from '../lib/types';

/** The last list and the last failure; a success clears the failure. */
function useMembers(): { members: Member[] | null; error: string | null } {
  const [members, setMembers] = useState<Member[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let stop: (() => void) | null = null;
    // A hidden tab asks nothing; it asks at once when it is shown again.
    const sync = () => {
      if (document.hidden) {
        stop?.();
        stop = null;
      } else if (!stop) {
        stop = poll({
          load: fetchMembers,
          intervalMs: MEMBERS_POLL_MS,
          onData: (list) => {
            setMembers(sortMembers(list));
            setError(null);
          },
          onError: (e) => setError(errorText(e)),
        });
      }
    };
    sync();
    document.addEventListener('visibilitychange', sync);
    return () => {
      document.removeEventListener('visibilitychange', sync);
      stop?.();
    };
  }, []);
  return { members, error };
}

export function Members() {
  const { members, error } = useMembers();
  return (
    <section class="pad members" data-testid="members">
      <h1>Members</h1>
      {error && (
        <div class="error" data-testid="members-error" role="alert">
          The members could not be read: {error}
          {members ? ' (the list below is the last one read; asking again every 2 s)' : ''}
        </div>
      )}
      {members === null && !error && <div class="muted">Loading…</div>}
      {members && members.length === 0 && (
        <p class="muted" data-testid="members-empty">
          No daemon is registered in this store.
        </p>
      )}
      {members && members.length > 0 && (
        <>
          <p class="muted small" data-testid="members-summary">
            {summaryText(members)}
          </p>
          <ul class="member-list">
            {members.map((m) => (
              <MemberRow key={m.daemonId} m={m} />
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function MemberRow({ m }: { m: Member }) {
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
