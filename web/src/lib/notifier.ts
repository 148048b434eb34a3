// Shows the notifications of lib/notifications.ts while the dashboard is open: follows
// the run summaries the board reads (lib/summaries.ts), and, for a running run a rule
// wants "needs me" for whose summary counts a pending approval (pendingApprovalCount),
// reads the run's detail for the question itself. Reads are one at a time per run, at
// most one every APPROVAL_CHECK_MS, and MAX_READS at a time in all.

import { api } from './api';
import {
  loadNotifySettings, TransitionTracker, wanted, type NotifyEvent, type NotifySettings, type PendingApprovalBrief,
} from './notifications';
import { hrefOf, navigate } from './router';
import { runPath } from './route';
import { summaries, type SummaryStore } from './summaries';
import type { RunSummary } from './types';

const APPROVAL_CHECK_MS = 1500;
const MAX_READS = 2;

type Listener = () => void;
const settingsListeners = new Set<Listener>();

/** Tells the running notifier that the stored settings changed (views/app/Notifications). */
export function notifySettingsChanged(): void {
  settingsListeners.forEach((l) => l());
}

export function notificationsSupported(): boolean {
  return typeof window !== 'undefined' && 'Notification' in window;
}

export function notificationPermission(): NotificationPermission | 'unsupported' {
  return notificationsSupported() ? Notification.permission : 'unsupported';
}

/** Shows one event; a click focuses the dashboard on the run. */
export function showNotification(e: NotifyEvent): void {
  const path = runPath(e.runId);
  const options: NotificationOptions = { body: e.body, tag: e.key, icon: new URL('icon-192.png', document.baseURI).href, data: { path, url: hrefOf(path) } };
  try {
    const n = new Notification(e.title, options);
    n.onclick = () => {
      window.focus();
      navigate(path);
      n.close();
    };
  } catch {
    // Chrome on Android has no Notification constructor: the service worker shows it,
    // and its notificationclick opens the run (public/sw.js, lib/serviceWorker.ts).
    void navigator.serviceWorker?.ready.then((r) => r.showNotification(e.title, options)).catch(() => undefined);
  }
}

type RunWithApprovals = RunSummary & { pendingApprovals?: PendingApprovalBrief[] };
const readRunDetail = async (runId: string): Promise<RunWithApprovals> =>
  (await api<{ run: RunWithApprovals }>(`api/runs/${encodeURIComponent(runId)}`)).run;

/** Starts following the summaries; the returned function stops. */
export function startNotifier(
  store: SummaryStore = summaries,
  show: (e: NotifyEvent) => void = showNotification,
  readRun: (runId: string) => Promise<RunWithApprovals> = readRunDetail,
): () => void {
  const tracker = new TransitionTracker();
  let settings: NotifySettings = loadNotifySettings();
  const lastSeen = new Map<string, RunSummary>();
  const checks = new Map<string, { busy: boolean; again: boolean; timer: ReturnType<typeof setTimeout> | null; last: number }>();
  let stopped = false;
  let baselined = false;
  let reading = 0;

  const active = () => settings.enabled && notificationPermission() === 'granted' && settings.rules.length > 0;
  const emit = (events: NotifyEvent[]) => {
    for (const e of events) {
      const run = store.runs.get(e.runId);
      if (active() && run && wanted(run, e.kind, settings.rules)) show(e);
    }
  };

  const check = (runId: string) => {
    let c = checks.get(runId);
    if (!c) checks.set(runId, (c = { busy: false, again: false, timer: null, last: 0 }));
    if (c.busy || c.timer) {
      c.again = true;
      return;
    }
    const wait = Math.max(0, c.last + APPROVAL_CHECK_MS - Date.now());
    const entry = c;
    const read = async () => {
      if (reading >= MAX_READS) {
        entry.timer = setTimeout(read, 300); // many running runs: a few reads at a time
        return;
      }
      entry.timer = null;
      entry.busy = true;
      reading++;
      entry.again = false;
      entry.last = Date.now();
      try {
        const run = await readRun(runId);
        if (!stopped) emit(tracker.approvals(run, run.pendingApprovals ?? []));
      } catch {
        /* gone or unreachable: the next change tries again */
      }
      reading--;
      entry.busy = false;
      if (entry.again && !stopped) check(runId);
    };
    entry.timer = setTimeout(read, wait);
  };

  const onChange = () => {
    emit(tracker.observe(store.runs.values(), !store.loading));
    const needsUserRules = active() ? settings.rules.filter((r) => r.needsUser) : [];
    for (const run of store.runs.values()) {
      const before = lastSeen.get(run.runId);
      // A run of the baseline is read once it changes; one first seen later (new) at once.
      const changed = before ? before !== run : baselined;
      lastSeen.set(run.runId, run);
      const asking = run.status === 'running' && (run.pendingApprovalCount ?? 0) > 0;
      if (changed && asking && needsUserRules.length && wanted(run, 'approval', needsUserRules)) check(run.runId);
    }
    for (const id of [...lastSeen.keys()]) if (!store.runs.has(id)) lastSeen.delete(id);
    for (const [id, c] of checks)
      if (!store.runs.has(id) && !c.busy) {
        if (c.timer) clearTimeout(c.timer);
        checks.delete(id);
      }
    if (!store.loading) baselined = true;
  };

  const onSettings = () => {
    settings = loadNotifySettings();
  };
  settingsListeners.add(onSettings);
  const onStorage = (e: StorageEvent) => {
    if (e.key === null || e.key.startsWith('agentry.notifications')) onSettings();
  };
  window.addEventListener('storage', onStorage);
  const unsubscribe = store.subscribe(onChange);
  onChange();
  return () => {
    stopped = true;
    unsubscribe();
    settingsListeners.delete(onSettings);
    window.removeEventListener('storage', onStorage);
    for (const c of checks.values()) if (c.timer) clearTimeout(c.timer);
  };
}
