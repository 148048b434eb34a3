// One run: header and actions (from its capabilities), tabs, live detail and timeline.

import { useEffect, useRef, useState } from 'preact/hooks';
import { api, apiStream, errorText } from '../lib/api';
import { ago, time, usageText } from '../lib/format';
import { linkProps, navigate } from '../lib/router';
import { RUN_TABS, runPath, type RunTab } from '../lib/route';
import { CursorGate } from '../lib/sse';
import { TimelineModel, type TimelineEvent, type TimelineState } from '../lib/timeline';
import type { RunDetail } from '../lib/types';
import { BrowserTab } from './BrowserTab';
import { Approvals, Attachments, Audit, DiffTab, Files, Queue, Sessions, Tasks } from './RunTabs';
import { Timeline } from './Timeline';

const enc = encodeURIComponent;

/**
 * The run's detail, from its stream and from the answers of actions. Both race: an action's
 * answer (say abort's, still `running`) can land after the stream's newer state
 * (`aborted`), so the copy with the higher revision wins.
 */
function useRunDetail(runId: string) {
  const [run, setRunState] = useState<RunDetail | null>(null);
  const [gone, setGone] = useState<string | null>(null);
  const setRun = (next: RunDetail) =>
    setRunState((prev) => (prev && prev.runId === next.runId && prev.revision > next.revision ? prev : next));
  useEffect(() => {
    setRunState(null);
    setGone(null);
    const s = apiStream(`api/runs/${enc(runId)}/events/detail`, {
      onEvent: (d) => {
        if (d?.type === 'run_detail' && d.run) setRun(d.run);
        else if (d?.type === 'run_removed') {
          setGone('This run was deleted.');
          s.close();
        }
      },
      onGone: (status) => setGone(status === 404 ? 'No such run.' : `The run's stream answered ${status}.`),
    });
    return () => s.close();
  }, [runId]);
  return { run, setRun, gone };
}

/** Durable events per history page (the daemon allows up to 5000); the first page, which
 * the first screen waits for, is smaller. */
const TIMELINE_PAGE = 1000;
const TIMELINE_FIRST_PAGE = 300;

interface HistoryPage {
  events: TimelineEvent[];
  firstCursor: number | null;
  lastCursor: number;
}

/**
 * The run's timeline, opened at its end: the newest page of history first (so a run with
 * 100,000 events shows its last screen at once), then the live stream from that page's
 * last cursor, and older pages on request. Prepending rebuilds the model from the held
 * events, since a tool or message may span the page boundary.
 */
function useTimeline(runId: string, epoch: number): TimelineState {
  const model = useRef<TimelineModel>(new TimelineModel());
  const [version, setVersion] = useState(0);
  const [hasOlder, setHasOlder] = useState(false);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const loader = useRef<() => void>(() => {});
  useEffect(() => {
    let cancelled = false;
    let m = new TimelineModel();
    model.current = m;
    const gate = new CursorGate();
    // Durable events held, in cursor order, and the ephemeral ones since the newest of them:
    // what a rebuild re-applies.
    let durable: TimelineEvent[] = [];
    let sinceDurable: TimelineEvent[] = [];
    let first: number | null = null;
    let stream: { close(): void } | null = null;
    let scheduled = false;
    const bump = () => {
      if (scheduled) return;
      scheduled = true;
      requestAnimationFrame(() => {
        scheduled = false;
        setVersion((v) => v + 1);
      });
    };
    const base = `api/runs/${enc(runId)}/timeline`;
    setVersion((v) => v + 1);
    setHasOlder(false);

    loader.current = async () => {
      if (first === null) return;
      setLoadingOlder(true);
      try {
        const page = await api<HistoryPage>(`${base}?before=${first}&limit=${TIMELINE_PAGE}`);
        if (cancelled) return;
        durable = [...page.events, ...durable];
        first = page.firstCursor;
        const rebuilt = new TimelineModel();
        for (const e of durable) rebuilt.apply(e);
        for (const e of sinceDurable) rebuilt.apply(e);
        m = rebuilt;
        model.current = rebuilt;
        setHasOlder(page.events.length === TIMELINE_PAGE);
        setVersion((v) => v + 1);
      } finally {
        if (!cancelled) setLoadingOlder(false);
      }
    };

    (async () => {
      let latest: HistoryPage | null = null;
      try {
        latest = await api<HistoryPage>(`${base}?before=latest&limit=${TIMELINE_FIRST_PAGE}`);
      } catch {
        latest = null; // the stream says why (gone, unauthenticated) or replays everything
      }
      if (cancelled) return;
      if (latest) {
        for (const e of latest.events) {
          gate.accept(e.cursor);
          durable.push(e);
          m.apply(e);
        }
        first = latest.firstCursor;
        setHasOlder(latest.events.length === TIMELINE_FIRST_PAGE);
        bump();
      }
      stream = apiStream(`api/runs/${enc(runId)}/events/timeline`, {
        resume: true,
        initialLastEventId: gate.last > 0 ? String(gate.last) : undefined,
        onOpen: (reconnect) => {
          if (reconnect) {
            m.resetOpenDeltas();
            sinceDurable = [];
            bump();
          }
        },
        onEvent: (d: TimelineEvent) => {
          if (!d || typeof d.kind !== 'string') return;
          if (!gate.accept(d.cursor)) return;
          if (d.cursor === null || d.cursor === undefined) {
            sinceDurable.push(d);
          } else {
            durable.push(d);
            sinceDurable = [];
          }
          m.apply(d);
          bump();
        },
      });
    })();
    return () => {
      cancelled = true;
      stream?.close();
    };
  }, [runId, epoch]);
  return {
    model: model.current,
    version,
    hasOlder,
    loadingOlder,
    loadOlder: () => loader.current(),
  };
}

type ActionName = 'start' | 'resume' | 'ready' | 'abort' | 'archive' | 'unarchive' | 'reset' | 'delete' | 'rename' | 'note' | 'pin' | 'group';

export function RunView({ runId, tab }: { runId: string; tab: RunTab }) {
  const { run, setRun, gone } = useRunDetail(runId);
  // A reset deletes the run's timeline (its cursors go on growing): read it again.
  const [epoch, setEpoch] = useState(0);
  const attempts = useRef<number | null>(null);
  useEffect(() => {
    if (!run) return;
    const n = run.totalAttemptCount ?? 0;
    if (attempts.current !== null && n < attempts.current) setEpoch((e) => e + 1);
    attempts.current = n;
  }, [run?.totalAttemptCount]);
  const timeline = useTimeline(runId, epoch);

  if (gone)
    return (
      <section class="run-view" data-testid="run-view" data-run-id={runId}>
        <div class="error">{gone}</div>
        <a {...linkProps('/')}>Back to the board</a>
      </section>
    );
  if (!run)
    return (
      <section class="run-view" data-testid="run-view" data-run-id={runId}>
        <div class="muted pad">Loading {runId}…</div>
      </section>
    );

  const pending = run.pendingApprovals ?? [];
  return (
    <section class="run-view" data-testid="run-view" data-run-id={runId}>
      <RunHeader run={run} onRun={setRun} />
      <nav class="tabs" role="tablist">
        {RUN_TABS.map((t) => (
          <a role="tab" aria-selected={t === tab} class={'tab' + (t === tab ? ' active' : '')} data-testid={'tab-' + t} {...linkProps(runPath(runId, t))}>
            {t}
            {t === 'approvals' && pending.length > 0 && (
              <span class="badge warn" data-testid="badge">
                {pending.length}
              </span>
            )}
            {t === 'tasks' && run.taskCounts?.total > 0 && (
              <span class="muted small">
                {' '}
                {run.taskCounts.completed}/{run.taskCounts.total}
              </span>
            )}
            {t === 'queue' && (run.queuedResumeMessages?.length ?? 0) > 0 && <span class="muted small"> {run.queuedResumeMessages.length}</span>}
          </a>
        ))}
      </nav>
      <div class="tab-body">
        {tab === 'timeline' && (
          <div class="timeline-tab">
            {pending.length > 0 && <Approvals run={run} compact />}
            <Timeline timeline={timeline} />
          </div>
        )}
        {tab === 'tasks' && <Tasks run={run} />}
        {tab === 'approvals' && <Approvals run={run} />}
        {tab === 'queue' && <Queue run={run} onRun={setRun} />}
        {tab === 'sessions' && <Sessions run={run} />}
        {tab === 'audit' && <Audit runId={runId} />}
        {tab === 'diff' && <DiffTab runId={runId} />}
        {tab === 'files' && <Files runId={runId} />}
        {tab === 'attachments' && <Attachments run={run} />}
        {tab === 'browser' && <BrowserTab run={run} />}
      </div>
    </section>
  );
}

function RunHeader({ run, onRun }: { run: RunDetail; onRun: (r: RunDetail) => void }) {
  const c = run.capabilities ?? {};
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<string | null>(null);
  const [message, setMessage] = useState('');
  const [editing, setEditing] = useState<null | 'rename' | 'note' | 'group'>(null);
  const [editText, setEditText] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [info, setInfo] = useState<string | null>(null);

  const act = async (fn: () => Promise<any>, after?: (res: any) => void) => {
    setBusy(true);
    setErr(null);
    setInfo(null);
    try {
      const res = await fn();
      if (res?.run) onRun(res.run);
      after?.(res);
    } catch (e) {
      setErr(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const post = (path: string, body: unknown = {}) => api(`api/runs/${enc(run.runId)}/${path}`, { method: 'POST', body });

  const initial = run.status === 'initialized' || run.status === 'ready';
  const actions: ActionName[] = [];
  if (c.canResume && initial) actions.push('start');
  if (c.canResume && !initial) actions.push('resume');
  if (c.canReady) actions.push('ready');
  if (c.canAbort) actions.push('abort');
  if (c.canArchive) actions.push('archive');
  if (c.canUnarchive) actions.push('unarchive');
  if (c.canReset) actions.push('reset');
  if (c.canDelete) actions.push('delete');
  if (!run.damaged) actions.push('rename', 'note', 'pin', 'group');

  const runAction = (a: ActionName) => {
    switch (a) {
      case 'start':
      case 'resume':
        return act(
          () => post('resume', message.trim() ? { message } : {}),
          () => setMessage(''),
        );
      case 'ready':
        return act(() => post('ready'));
      case 'abort':
        return act(() => post('abort', {}), () => setInfo('Abort requested; the status follows when the backend stops.'));
      case 'archive':
        return act(() => post('archive'));
      case 'unarchive':
        return act(() => post('unarchive'));
      case 'reset':
        return act(() => post('reset'));
      case 'delete':
        return setConfirming(true);
      case 'pin':
        return act(() => post('pinned', { pinned: !run.pinned }));
      case 'rename':
        setEditText(run.name ?? '');
        return setEditing('rename');
      case 'note':
        setEditText(run.note ?? '');
        return setEditing('note');
      case 'group':
        setEditText(run.runGroupId ?? '');
        return setEditing('group');
    }
  };

  const saveEdit = () => {
    const v = editText;
    if (editing === 'rename') act(() => post('name', { name: v.trim() ? v.trim() : null }), () => setEditing(null));
    else if (editing === 'note') act(() => post('note', { note: v.trim() ? v : null }), () => setEditing(null));
    else if (editing === 'group')
      act(() => (v.trim() && v.trim() !== run.runId ? post('group', { runGroupId: v.trim() }) : post('group/clear')), () => setEditing(null));
  };

  const label: Record<ActionName, string> = {
    start: 'Start',
    resume: 'Resume',
    ready: 'Ready',
    abort: 'Abort',
    archive: 'Archive',
    unarchive: 'Unarchive',
    reset: 'Reset',
    delete: 'Delete',
    rename: 'Rename',
    note: 'Note',
    pin: run.pinned ? 'Unpin' : 'Pin',
    group: 'Group',
  };

  return (
    <header class="run-header">
      <div class="rh-top">
        <a class="back" {...linkProps('/')} title="Back (Esc)">
          ←
        </a>
        <h1 class="rh-name">
          {run.pinned && <span class="pin">★ </span>}
          {run.name || run.runId}
        </h1>
        <span class={'status-chip st-' + run.status} data-testid="run-header-status">
          {run.status}
        </span>
        {run.archived && <span class="pill">archived</span>}
      </div>
      <div class="rh-reason" data-testid="run-reason">
        {run.statusReason}
      </div>
      <div class="rh-meta muted small">
        <span class="mono">{run.runId}</span> · {run.agent}
        {run.assignment ? ' · ' + run.assignment : ''} · {run.backend}
        {run.model ? ' · ' + run.model : ''}
        {usageText(run.usage) && (
          <span data-testid="run-usage" title={(run.usage?.warnings ?? []).join('\n') || 'tokens used and their cost (prices.yaml)'}>
            {' · '}
            {usageText(run.usage)}
          </span>
        )}
        {run.environment && (
          <span data-testid="run-environment" title={`execution environment: ${run.environment.kind}, network ${run.environment.network || 'the container’s'}`}>
            {' · in '}
            {run.environment.kind} {run.environment.name}
          </span>
        )}{' '}
        · <span class="mono">{run.cwd}</span> · created {ago(run.createdAt)}
        {run.runGroupId !== run.runId ? ` · group ${run.runGroupId}` : ''}
        {run.parentRunId && (
          <>
            {' '}
            · parent <a {...linkProps(runPath(run.parentRunId))}>{run.parentRunId}</a>
          </>
        )}
        {run.damaged && <span class="error-text"> · damaged: {run.damaged.reason}</span>}
        {run.owner && (
          <span data-testid="run-owner" title={`lease epoch ${run.owner.epoch}, ${run.owner.daemonId}`}>
            {' '}
            · on <a {...linkProps('/members')}>{run.owner.name}</a>
          </span>
        )}
      </div>
      {run.note && <div class="rh-note small"><span class="muted">note:</span> {run.note}</div>}
      <div class="actions">
        {(c.canResume || c.canQueueMessage) && (
          <textarea
            data-testid="action-message"
            class="action-message"
            rows={1}
            placeholder={c.canResume ? (initial ? 'Message to start with (optional)' : 'Message to resume with (optional)') : 'Running: queue a follow-up in the queue tab'}
            value={message}
            disabled={!c.canResume}
            onInput={(e) => setMessage((e.currentTarget as HTMLTextAreaElement).value)}
          />
        )}
        <div class="buttons">
          {actions.map((a) => (
            <button data-testid={'action-' + a} class={a === 'start' || a === 'resume' ? 'primary' : a === 'abort' || a === 'delete' ? 'danger' : ''} disabled={busy} onClick={() => runAction(a)}>
              {label[a]}
            </button>
          ))}
        </div>
      </div>
      {editing && (
        <form
          class="inline-edit"
          data-testid={'edit-' + editing}
          onSubmit={(e) => {
            e.preventDefault();
            saveEdit();
          }}
        >
          {editing === 'note' ? (
            <textarea data-testid="edit-input" rows={3} value={editText} onInput={(e) => setEditText((e.currentTarget as HTMLTextAreaElement).value)} />
          ) : (
            <input data-testid="edit-input" value={editText} placeholder={editing === 'group' ? 'run group id (empty: its own)' : 'name (empty: none)'} onInput={(e) => setEditText((e.currentTarget as HTMLInputElement).value)} />
          )}
          <button type="submit" data-testid="edit-save" class="primary" disabled={busy}>
            Save
          </button>
          <button type="button" onClick={() => setEditing(null)}>
            Cancel
          </button>
        </form>
      )}
      {confirming && (
        <div class="confirm" role="alertdialog" data-testid="confirm">
          Delete run {run.name || run.runId} for good? Its timeline, tasks and attachments go with it.
          <button
            class="danger"
            data-testid="confirm-yes"
            disabled={busy}
            onClick={() =>
              act(
                () => api(`api/runs/${enc(run.runId)}`, { method: 'DELETE' }),
                () => {
                  setConfirming(false);
                  navigate('/');
                },
              )
            }
          >
            Delete
          </button>
          <button data-testid="confirm-no" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      )}
      {err && (
        <div class="error" data-testid="action-error">
          {err}
        </div>
      )}
      {info && <div class="muted small">{info}</div>}
      <Schedule run={run} onRun={onRun} />
      <Dependencies run={run} onRun={onRun} />
    </header>
  );
}

/** `run:<id>` / `group:<id>` (or a bare run id) as the dependency routes take it. */
export function parseDependency(text: string): { type: 'run'; runId: string } | { type: 'group'; groupId: string } | null {
  const t = text.trim();
  if (!t) return null;
  if (t.startsWith('group:')) return t.length > 6 ? { type: 'group', groupId: t.slice(6) } : null;
  const id = t.startsWith('run:') ? t.slice(4) : t;
  return id ? { type: 'run', runId: id } : null;
}

function Dependencies({ run, onRun }: { run: RunDetail; onRun: (r: RunDetail) => void }) {
  const deps = run.dependencies ?? [];
  const can = !!run.capabilities?.canEditDependencies;
  const [text, setText] = useState('');
  const [err, setErr] = useState<string | null>(null);
  if (!deps.length && !can) return null;
  const call = async (method: string, body: unknown) => {
    setErr(null);
    try {
      const res = await api(`api/runs/${enc(run.runId)}/dependencies`, { method, body });
      if (res?.run) onRun(res.run);
      return true;
    } catch (e) {
      setErr(errorText(e));
      return false;
    }
  };
  return (
    <div class="deps small" data-testid="dependencies">
      <span class="muted">waits on:</span>{' '}
      {deps.length === 0 && <span class="muted">nothing</span>}
      {deps.map((d) => (
        <span class={'pill ' + (d.satisfied ? 'ok-text' : 'warn-text')} data-testid="dependency">
          {d.type === 'run' ? `run ${d.runId} (${d.status ?? 'missing'})` : `group ${d.groupId} (${d.succeeded ?? 0}/${d.members ?? 0} succeeded)`}
          {can && (
            <button class="link" title="remove" onClick={() => call('DELETE', d.type === 'run' ? { type: 'run', runId: d.runId } : { type: 'group', groupId: d.groupId })}>
              ×
            </button>
          )}
        </span>
      ))}
      {can && (
        <form
          class="inline"
          onSubmit={async (e) => {
            e.preventDefault();
            const dep = parseDependency(text);
            if (!dep) return setErr('Name a run id, or group:<id>.');
            if (await call('POST', dep)) setText('');
          }}
        >
          <input data-testid="dependency-input" placeholder="run id or group:<id>" value={text} onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)} />
          <button type="submit" data-testid="dependency-add">
            Add
          </button>
        </form>
      )}
      {err && <div class="error">{err}</div>}
    </div>
  );
}

/** The body of PUT .../schedule from the form: exactly one of delay, at, cron. */
export function scheduleBody(kind: string, value: string, timezone: string, mode: string): Record<string, string> | string {
  const v = value.trim();
  if (!v) return 'Give a delay, a time or a cron expression.';
  if (kind === 'delay') return { delay: v };
  if (kind === 'at') {
    const t = new Date(v);
    if (Number.isNaN(t.getTime())) return 'Not a time.';
    return { at: t.toISOString() };
  }
  const body: Record<string, string> = { cron: v };
  if (timezone.trim()) body.timezone = timezone.trim();
  if (mode) body.mode = mode;
  return body;
}

function Schedule({ run, onRun }: { run: RunDetail; onRun: (r: RunDetail) => void }) {
  const sch = run.schedule as Record<string, any> | null | undefined;
  const st = run.scheduleState;
  const [editing, setEditing] = useState(false);
  const [kind, setKind] = useState('delay');
  const [value, setValue] = useState('');
  const [tz, setTz] = useState(() => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  const [mode, setMode] = useState('reuse');
  const [err, setErr] = useState<string | null>(null);
  const call = async (method: string, path: string, body?: unknown) => {
    setErr(null);
    try {
      const res = await api(`api/runs/${enc(run.runId)}/schedule${path}`, { method, body });
      if (res?.run) onRun(res.run);
      return true;
    } catch (e) {
      setErr(errorText(e));
      return false;
    }
  };
  if (run.archived && !sch) return null;
  return (
    <div class="deps small" data-testid="schedule">
      <span class="muted">schedule:</span>{' '}
      {sch ? (
        <span class="pill">
          {sch.kind === 'recurring' ? `cron ${sch.cron} (${sch.timezone})` : sch.at ? `at ${time(sch.at)}` : `once`}
          {st ? ` · ${st.state}` : ''}
          {st?.nextAt ? ` · next ${time(st.nextAt)}` : ''}
          {st?.reason ? ` · ${st.reason}` : ''}
        </span>
      ) : (
        <span class="muted">none</span>
      )}
      {sch && sch.enabled === false && <button onClick={() => call('POST', '/enable')}>Enable</button>}
      {sch && sch.enabled !== false && <button onClick={() => call('POST', '/disable')}>Disable</button>}
      {sch && sch.kind !== 'recurring' && <button onClick={() => call('DELETE', '')}>Clear</button>}
      {!editing && !run.archived && <button onClick={() => setEditing(true)}>{sch ? 'Change' : 'Schedule'}</button>}
      {editing && (
        <form
          class="inline"
          onSubmit={async (e) => {
            e.preventDefault();
            const body = scheduleBody(kind, value, tz, mode);
            if (typeof body === 'string') return setErr(body);
            if (await call('PUT', '', body)) setEditing(false);
          }}
        >
          <select value={kind} onChange={(e) => setKind((e.currentTarget as HTMLSelectElement).value)}>
            <option value="delay">in</option>
            <option value="at">at</option>
            <option value="cron">cron</option>
          </select>
          {kind === 'at' ? (
            <input type="datetime-local" value={value} onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)} />
          ) : (
            <input placeholder={kind === 'delay' ? '30m, 1h30m' : '0 9 * * MON-FRI'} value={value} onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)} />
          )}
          {kind === 'cron' && (
            <>
              <input placeholder="timezone" value={tz} onInput={(e) => setTz((e.currentTarget as HTMLInputElement).value)} />
              <select value={mode} onChange={(e) => setMode((e.currentTarget as HTMLSelectElement).value)}>
                <option value="reuse">reuse</option>
                <option value="reset">reset</option>
                <option value="clone">clone</option>
              </select>
            </>
          )}
          <button type="submit" class="primary">
            Set
          </button>
          <button type="button" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
      )}
      {err && <div class="error">{err}</div>}
    </div>
  );
}
