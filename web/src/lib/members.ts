// The Members view's logic: the order of the list, what each state looks like, and the
// texts of a row. The component (views/members/) only lays them out.

import { dur } from './format';
import type { Member } from './types';

/** How often the view asks again while it is shown. */
export const MEMBERS_POLL_MS = 2000;

export type BadgeTone = 'ok' | 'warn' | 'err' | 'unknown';

/**
 * The badge of a state. A state this dashboard does not know (a newer daemon's) is shown
 * as it is, in a neutral colour, rather than hidden or mistaken for one it knows.
 */
export function stateBadge(state: string): { label: string; tone: BadgeTone; title: string } {
  switch (state) {
    case 'alive':
      return { label: 'alive', tone: 'ok', title: 'heard from within half the lease time' };
    case 'suspect':
      return { label: 'suspect', tone: 'warn', title: 'a heartbeat or two missed: slow, paused or cut off' };
    case 'dead':
      return { label: 'dead', tone: 'err', title: 'silent for longer than the lease time' };
    default:
      return { label: state || 'unknown', tone: 'unknown', title: '' };
  }
}

/** "4 / 20", or "4" when the member set no limit. */
export function capacityText(liveRuns: number, capacity: number | null): string {
  return capacity === null || capacity === undefined || capacity <= 0 ? String(liveRuns) : `${liveRuns} / ${capacity}`;
}

/** At or over its capacity: shown in the warning colour. */
export function isFull(m: Pick<Member, 'liveRuns' | 'capacity'>): boolean {
  return m.capacity !== null && m.capacity > 0 && m.liveRuns >= m.capacity;
}

/**
 * "heard from 3s ago". The age is the daemon's (heartbeatAgeMs, by the database's clock)
 * so a browser whose clock is off still reads it right; it never goes below 0s.
 */
export function heardText(ageMs: number | null | undefined): string {
  if (ageMs === null || ageMs === undefined || !Number.isFinite(ageMs)) return 'never heard from';
  return `heard from ${dur(Math.max(0, Math.floor(ageMs / 1000)))} ago`;
}

/**
 * By name, then id (two members may share a name). Kept in this order whatever their
 * states, so rows do not jump around while the view refreshes.
 */
export function sortMembers(members: readonly Member[]): Member[] {
  return [...members].sort((a, b) => cmp(a.name, b.name) || cmp(a.daemonId, b.daemonId));
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** How many members are in each state, for the line above the list. */
export function countByState(members: readonly Member[]): Record<string, number> {
  const counts: Record<string, number> = { alive: 0, suspect: 0, dead: 0 };
  for (const m of members) counts[m.state] = (counts[m.state] ?? 0) + 1;
  return counts;
}

/** "3 members: 2 alive, 1 suspect" (states with none left out). */
export function summaryText(members: readonly Member[]): string {
  const n = members.length;
  const parts = Object.entries(countByState(members))
    .filter(([, c]) => c > 0)
    .map(([s, c]) => `${c} ${s}`);
  return `${n} ${n === 1 ? 'member' : 'members'}${parts.length ? ': ' + parts.join(', ') : ''}`;
}

/**
 * The advertised URL as a link target, or null when it is not http(s): the value comes
 * from the store, where any member wrote it, and must never become a javascript: link.
 */
export function safeHref(u: string): string | null {
  return /^https?:\/\//i.test(u) ? u : null;
}
