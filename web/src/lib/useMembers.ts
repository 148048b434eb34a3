// The daemons serving this store (GET /api/daemons), asked again every MEMBERS_POLL_MS
// while the caller is shown and the tab is visible.

import { useEffect, useState } from 'preact/hooks';
import { errorText, fetchMembers } from './api';
import { MEMBERS_POLL_MS, sortMembers } from './members';
import { poll } from './poll';
import type { Member } from './types';

/** The last list and the last failure; a success clears the failure. */
export function useMembers(): { members: Member[] | null; error: string | null } {
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
