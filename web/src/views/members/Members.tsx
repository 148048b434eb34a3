// The daemons serving this store (GET /api/daemons), asked again every 2 s while the view
// is shown and the tab is visible (useMembers).

import { summaryText } from '../../lib/members';
import { useMembers } from '../../lib/useMembers';
import { MemberRow } from './MemberRow';

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
