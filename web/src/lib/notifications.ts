// Browser notifications when a run ends or needs the user: the rules (saved board
// filters, kept in localStorage) and the transitions of the run summaries that make an
// event. No DOM here; lib/notifier.ts shows the events.
//
// A transition is seen by comparing each run's summary with the one seen before, so
// the first listing after the page opens is only a baseline (runs that ended earlier
// are not announced), and a re-listing after a reconnect announces only what changed
// while the stream was down. Every event has a key (run, what happened, which
// occurrence) that is announced once, whatever replays: the same key is also the
// notification's tag, so two tabs showing it replace rather than stack.

import { filtersFrom, matches, type BoardFilters } from './board';
import { browserStorage, readStoredJson, writeStoredJson, type KeyValueStore } from './storage';
import type { RunSummary } from './types';

export const NOTIFY_KEY = 'agentry.notifications.v1';

/** Statuses a run ends in without needing anyone (blocked is told apart: it needs the user). */
export const ENDED_STATUSES: readonly string[] = ['success', 'error', 'exhausted', 'aborted'];

export interface NotifyRule {
  id: string;
  /** Which runs: the board's filters when the rule was made. */
  filters: BoardFilters;
  /** Tell when a run ends (success, error, exhausted, aborted). */
  ended: boolean;
  /** Tell when a run needs the user: it waits for an approval, or ended blocked. */
  needsUser: boolean;
}

export interface NotifySettings {
  enabled: boolean;
  rules: NotifyRule[];
}

export const NO_NOTIFY: NotifySettings = { enabled: false, rules: [] };
const MAX_RULES = 20;

export type NotifyKind = 'ended' | 'blocked' | 'approval';

export interface NotifyEvent {
  key: string;
  runId: string;
  kind: NotifyKind;
  title: string;
  body: string;
}

function ruleFrom(value: unknown, index: number): NotifyRule | null {
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  return {
    id: typeof v.id === 'string' && v.id ? v.id.slice(0, 64) : 'rule-' + index,
    filters: filtersFrom(v.filters),
    ended: v.ended !== false,
    needsUser: v.needsUser !== false,
  };
}

/** The stored settings, checked field by field: anything wrong falls back to "off, no rules". */
export function loadNotifySettings(storage: KeyValueStore | null = browserStorage()): NotifySettings {
  const parsed = readStoredJson(storage, NOTIFY_KEY);
  if (typeof parsed !== 'object' || parsed === null) return { ...NO_NOTIFY, rules: [] };
  const p = parsed as Record<string, unknown>;
  const rules = Array.isArray(p.rules) ? p.rules.slice(0, MAX_RULES).map(ruleFrom).filter((r): r is NotifyRule => r !== null) : [];
  return { enabled: p.enabled === true, rules };
}

export function saveNotifySettings(settings: NotifySettings, storage: KeyValueStore | null = browserStorage()): boolean {
  return writeStoredJson(storage, NOTIFY_KEY, { enabled: settings.enabled, rules: settings.rules.slice(0, MAX_RULES) });
}

/** A new rule for the runs `filters` lets through, telling both kinds of event. */
export function newRule(filters: BoardFilters, now = Date.now()): NotifyRule {
  return { id: 'r' + now.toString(36) + Math.random().toString(36).slice(2, 6), filters: { ...filters }, ended: true, needsUser: true };
}

/** What a rule's filter says in words, e.g. "status blocked · agent coder", or "every run". */
export function ruleLabel(rule: NotifyRule): string {
  const f = rule.filters;
  const parts: string[] = [];
  if (f.text) parts.push(`"${f.text}"`);
  if (f.status) parts.push('status ' + f.status);
  if (f.agent) parts.push('agent ' + f.agent);
  if (f.assignment) parts.push('assignment ' + f.assignment);
  if (f.group) parts.push('group ' + f.group);
  if (f.archived) parts.push('archived too');
  return parts.length ? parts.join(' · ') : 'every run';
}

/** Whether any enabled rule wants `kind` for this run. */
export function wanted(run: RunSummary, kind: NotifyKind, rules: readonly NotifyRule[]): boolean {
  return rules.some((r) => (kind === 'ended' ? r.ended : r.needsUser) && matches(run, r.filters));
}

type Phase = 'active' | 'ended' | 'blocked';

function phaseOf(s: RunSummary): Phase {
  if (s.status === 'blocked') return 'blocked';
  return ENDED_STATUSES.includes(s.status) ? 'ended' : 'active';
}

function nameOf(s: RunSummary): string {
  return s.name || s.runId;
}

/** The run's end: one key per end (a reset run that ends again has a new finishedAt). */
function endKey(s: RunSummary, phase: Phase): string {
  return `${s.runId}:${phase}:${s.finishedAt ?? 'r' + s.revision}`;
}

export interface PendingApprovalBrief {
  approvalId: string;
  kind?: string;
  summary?: string;
}

/** Follows the summaries and says which runs changed phase; each key at most once. */
export class TransitionTracker {
  private known = new Map<string, { phase: Phase; revision: number }>();
  private sent = new Set<string>();
  private baselined = false;

  constructor(private readonly maxKeys = 2000) {}

  /**
   * Compares every run with what was seen before. `loaded`: the store's first listing is
   * complete; until then (and for that listing) what is seen is the baseline.
   */
  observe(runs: Iterable<RunSummary>, loaded: boolean): NotifyEvent[] {
    const events: NotifyEvent[] = [];
    const present = new Set<string>();
    for (const s of runs) {
      present.add(s.runId);
      const before = this.known.get(s.runId);
      if (before && (s.revision ?? 0) < before.revision) continue; // an older copy, replayed
      const phase = phaseOf(s);
      this.known.set(s.runId, { phase, revision: s.revision ?? 0 });
      if (!this.baselined) continue;
      // A run first seen after the baseline is new: created since, so it was active before.
      const was = before?.phase ?? 'active';
      if (phase === was || phase === 'active') continue;
      const key = endKey(s, phase);
      if (!this.remember(key)) continue;
      events.push(
        phase === 'blocked'
          ? { key, runId: s.runId, kind: 'blocked', title: `${nameOf(s)} is blocked`, body: s.statusReason || 'It needs you to go on.' }
          : { key, runId: s.runId, kind: 'ended', title: `${nameOf(s)} ended: ${s.status}`, body: s.statusReason || `${s.agent} · ${s.runId}` },
      );
    }
    for (const id of [...this.known.keys()]) if (!present.has(id)) this.known.delete(id);
    if (loaded) this.baselined = true;
    return events;
  }

  /** The run's pending approvals as last read: one event per approval not told before. */
  approvals(s: RunSummary, pending: readonly PendingApprovalBrief[]): NotifyEvent[] {
    const events: NotifyEvent[] = [];
    for (const a of pending) {
      const key = `${s.runId}:approval:${a.approvalId}`;
      if (!this.remember(key)) continue;
      const what = a.summary ? `${a.kind ? a.kind + ': ' : ''}${a.summary}` : 'It waits for your approval.';
      events.push({ key, runId: s.runId, kind: 'approval', title: `${nameOf(s)} needs you`, body: what.slice(0, 200) });
    }
    return events;
  }

  /** True the first time `key` is seen; the oldest keys are forgotten past the limit. */
  private remember(key: string): boolean {
    if (this.sent.has(key)) return false;
    this.sent.add(key);
    if (this.sent.size > this.maxKeys) this.sent.delete(this.sent.values().next().value as string);
    return true;
  }
}
