// The run view's tabs other than the timeline.

import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, ApiError, apiStream, errorText, rawRequest } from '../lib/api';
import { bytes, time } from '../lib/format';
import { CursorGate } from '../lib/sse';
import type { Attachment, RunDetail, Task } from '../lib/types';
import { Patch } from './Timeline';
import { VirtualList } from './VirtualList';

const enc = encodeURIComponent;

// ---------------- approvals ----------------

export function Approvals({ run, compact }: { run: RunDetail; compact?: boolean }) {
  const [answered, setAnswered] = useState<Record<string, string>>({});
  const [err, setErr] = useState<string | null>(null);
  const pending = (run.pendingApprovals ?? []).filter((a) => !answered[a.approvalId]);
  // A question that comes back (the backend refused the answer) shows again.
  useEffect(() => setAnswered({}), [run.revision]);
  const answer = async (id: string, decision: 'approve' | 'deny') => {
    setErr(null);
    setAnswered((m) => ({ ...m, [id]: decision }));
    try {
      await api(`api/runs/${enc(run.runId)}/approvals/${enc(id)}`, { method: 'POST', body: { decision } });
    } catch (e) {
      setErr(errorText(e));
      setAnswered((m) => {
        const n = { ...m };
        delete n[id];
        return n;
      });
    }
  };
  return (
    <div class={compact ? 'approvals compact' : 'approvals pad'}>
      {!compact && pending.length === 0 && <div class="muted">No approval is pending.</div>}
      {pending.map((a) => (
        <div class="approval" data-testid="approval" data-approval-id={a.approvalId}>
          <div class="approval-q">
            <span class="badge warn">{a.kind}</span> <span data-testid="approval-summary">{a.summary}</span>
          </div>
          {a.details !== undefined && a.details !== null && <pre class="output small">{JSON.stringify(a.details, null, 2)}</pre>}
          <div class="buttons">
            <button class="primary" data-testid="approve" onClick={() => answer(a.approvalId, 'approve')}>
              Approve
            </button>
            <button class="danger" data-testid="deny" onClick={() => answer(a.approvalId, 'deny')}>
              Deny
            </button>
            <span class="muted small">asked {time(a.requestedAt)}</span>
          </div>
        </div>
      ))}
      {err && <div class="error">{err}</div>}
    </div>
  );
}

// ---------------- tasks ----------------

const TASK_STATUSES = ['pending', 'in_progress', 'completed', 'blocked'];

export function Tasks({ run }: { run: RunDetail }) {
  const tasks = run.tasks ?? [];
  const tm = run.capabilities?.taskMutation ?? {};
  const [title, setTitle] = useState('');
  const [err, setErr] = useState<string | null>(null);
  const add = async () => {
    setErr(null);
    try {
      await api(`api/runs/${enc(run.runId)}/tasks`, { method: 'POST', body: { title: title.trim() } });
      setTitle('');
    } catch (e) {
      setErr(errorText(e));
    }
  };
  return (
    <div class="pad tasks">
      {tasks.length === 0 && <div class="muted">This run has no tasks.</div>}
      {tasks.map((t) => (
        <TaskRow key={t.id} runId={run.runId} task={t} canStatus={!!tm.canSetStatus} canNotes={!!tm.canSetNotes} canDelete={!!tm.canDeletePending && t.status === 'pending'} />
      ))}
      {tm.canAdd && (
        <form
          class="toolbar"
          onSubmit={(e) => {
            e.preventDefault();
            if (title.trim()) void add();
          }}
        >
          <input data-testid="task-add-title" placeholder="New task title" value={title} onInput={(e) => setTitle((e.currentTarget as HTMLInputElement).value)} />
          <button data-testid="task-add" type="submit" disabled={!title.trim()}>
            Add task
          </button>
        </form>
      )}
      {err && <div class="error">{err}</div>}
    </div>
  );
}

function TaskRow({ runId, task, canStatus, canNotes, canDelete }: { runId: string; task: Task; canStatus: boolean; canNotes: boolean; canDelete: boolean }) {
  const [status, setStatus] = useState(task.status);
  const [notes, setNotes] = useState(task.notes ?? '');
  const [err, setErr] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState(false);
  // A change from elsewhere (the agent) shows when the user has not edited.
  const [base, setBase] = useState(task);
  if (base.status !== task.status || base.notes !== task.notes) {
    if (status === base.status) setStatus(task.status);
    if (notes === (base.notes ?? '')) setNotes(task.notes ?? '');
    setBase(task);
  }
  const dirty = status !== task.status || notes !== (task.notes ?? '');
  const save = async () => {
    const body: Record<string, string> = {};
    if (status !== task.status) body.status = status;
    if (notes !== (task.notes ?? '')) body.notes = notes;
    if (!Object.keys(body).length) return;
    setBusy(true);
    setErr(null);
    try {
      await api(`api/runs/${enc(runId)}/tasks/${enc(task.id)}`, { method: 'PATCH', body });
      setSaved(true);
      setTimeout(() => setSaved(false), 1500);
    } catch (e) {
      setErr(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class={'task st-border-' + task.status} data-testid="task" data-task-id={task.id}>
      <div class="task-head">
        <span class="task-title">{task.title}</span> <span class="muted mono small">{task.id}</span>
        <select data-testid="task-status" value={status} disabled={!canStatus} onChange={(e) => setStatus((e.currentTarget as HTMLSelectElement).value)}>
          {TASK_STATUSES.map((s) => (
            <option value={s}>{s}</option>
          ))}
        </select>
      </div>
      {task.body && <div class="task-body small">{task.body}</div>}
      <textarea data-testid="task-notes" rows={2} placeholder="notes" value={notes} disabled={!canNotes} onInput={(e) => setNotes((e.currentTarget as HTMLTextAreaElement).value)} />
      <div class="buttons">
        <button data-testid="task-save" class="primary" disabled={busy || !dirty} onClick={save}>
          Save
        </button>
        {canDelete && (
          <button
            data-testid="task-delete"
            onClick={async () => {
              setErr(null);
              try {
                await api(`api/runs/${enc(runId)}/tasks/${enc(task.id)}`, { method: 'DELETE' });
              } catch (e) {
                setErr(errorText(e));
              }
            }}
          >
            Delete
          </button>
        )}
        {saved && <span class="ok-text small">saved</span>}
        {err && <span class="error-text small">{err}</span>}
      </div>
    </div>
  );
}

// ---------------- queue ----------------

export function Queue({ run, onRun }: { run: RunDetail; onRun: (r: RunDetail) => void }) {
  const [text, setText] = useState('');
  const [err, setErr] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [removed, setRemoved] = useState<Set<string>>(new Set());
  const c = run.capabilities ?? {};
  const items = (run.queuedResumeMessages ?? []).filter((m) => !removed.has(m.id));
  const add = async () => {
    if (!text.trim()) return;
    setBusy(true);
    setErr(null);
    try {
      const res = await api(`api/runs/${enc(run.runId)}/queued-resume-messages`, { method: 'POST', body: { text } });
      if (res?.run) onRun(res.run);
      setText('');
    } catch (e) {
      setErr(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const remove = async (id: string) => {
    setErr(null);
    setRemoved((s) => new Set(s).add(id));
    try {
      await api(`api/runs/${enc(run.runId)}/queued-resume-messages/${enc(id)}`, { method: 'DELETE' });
    } catch (e) {
      setErr(errorText(e));
      setRemoved((s) => {
        const n = new Set(s);
        n.delete(id);
        return n;
      });
    }
  };
  return (
    <div class="pad queue">
      <p class="muted small">Follow-ups queued while the run works; they start its next session together when this one ends.</p>
      {items.length === 0 && <div class="muted">Nothing queued.</div>}
      {items.map((m) => (
        <div class="queued" data-testid="queued-item" data-message-id={m.id}>
          <div class="msg-text">{m.text}</div>
          <div class="buttons">
            <span class="muted small">
              {time(m.createdAt)} · {String(m.source?.actor ?? m.source?.kind ?? '')}
            </span>
            <button data-testid="queue-remove" disabled={!c.canRemoveQueuedMessage} onClick={() => remove(m.id)}>
              Remove
            </button>
          </div>
        </div>
      ))}
      <textarea data-testid="queue-input" rows={3} value={text} placeholder={c.canQueueMessage ? 'Queue a follow-up…' : 'Only a running run takes queued messages'} onInput={(e) => setText((e.currentTarget as HTMLTextAreaElement).value)} />
      <div class="buttons">
        <button data-testid="queue-add" class="primary" disabled={busy || !text.trim()} onClick={add}>
          Queue
        </button>
      </div>
      {err && <div class="error">{err}</div>}
    </div>
  );
}

// ---------------- sessions ----------------

function varText(v: unknown): string {
  if (v && typeof v === 'object' && (v as any).redacted) {
    const r = v as { source?: string; envName?: string; inheritedFromRunId?: string };
    return `[redacted: ${r.source ?? ''}${r.envName ? ' ' + r.envName : ''}${r.inheritedFromRunId ? ' via ' + r.inheritedFromRunId : ''}]`;
  }
  return v === null || v === undefined ? '(unset)' : typeof v === 'string' ? v : JSON.stringify(v);
}

export function Sessions({ run }: { run: RunDetail }) {
  const sessions = run.sessions ?? [];
  const vars = Object.entries(run.vars ?? {});
  const brief = (run as RunDetail & { brief?: string }).brief;
  return (
    <div class="pad sessions">
      <details class="inputs" data-testid="run-inputs">
        <summary class="muted">inputs: {vars.length} vars · message · brief</summary>
        {vars.length > 0 && (
          <table class="small kv">
            <tbody>
              {vars.map(([k, v]) => (
                <tr>
                  <th class="mono">{k}</th>
                  <td>{varText(v)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {run.message && (
          <>
            <div class="muted small">message</div>
            <div class="msg-text small">{run.message}</div>
          </>
        )}
        {brief && (
          <>
            <div class="muted small">brief (what the agent received first)</div>
            <pre class="output">{brief}</pre>
          </>
        )}
      </details>
      {sessions.length === 0 && <div class="muted">No session yet.</div>}
      {sessions.map((s) => (
        <div class="session" data-testid="session" data-session-index={s.index}>
          <div>
            <strong>session {s.index}</strong> <span class={'status-chip st-' + s.status}>{s.status}</span> <span class="muted small">
              {time(s.startedAt)} → {s.endedAt ? time(s.endedAt) : 'running'}
              {s.endedBy ? ` · ended by ${s.endedBy}` : ''}
            </span>
          </div>
          {s.endReason && <div class="small">{s.endReason}</div>}
          {s.prompt && (
            <details>
              <summary class="muted small">prompt</summary>
              <div class="msg-text small">{s.prompt}</div>
            </details>
          )}
          <table class="attempts small">
            <tbody>
              {(s.attempts ?? []).map((a) => (
                <tr data-testid="attempt">
                  <td>attempt {a.attemptNumber}</td>
                  <td class="muted">#{a.attemptIndexInSession} in session</td>
                  <td>{a.outcome ?? 'running'}</td>
                  <td class="muted">{time(a.startedAt)}</td>
                  <td class="muted">{a.endedAt ? time(a.endedAt) : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ))}
    </div>
  );
}

// ---------------- audit ----------------

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
    let scheduled = false;
    setEvents([]);
    const s = apiStream(`api/runs/${enc(runId)}/events/audit`, {
      resume: true,
      onEvent: (d: AuditEvent) => {
        if (!d || !gate.accept(d.cursor)) return;
        list.push(d);
        if (!scheduled) {
          scheduled = true;
          requestAnimationFrame(() => {
            scheduled = false;
            setEvents([...list]);
          });
        }
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

// ---------------- diff ----------------

interface WorkspaceDiff {
  files: Array<{ path: string; oldPath: string | null; status: string; additions: number | null; deletions: number | null; binary: boolean }>;
  patch: string;
  stats: { files: number; additions: number; deletions: number };
  truncated: boolean;
  truncatedReason: string | null;
  base: { ref: string | null; commit: string | null };
}

/** Splits a unified patch into per-file pieces keyed by the new path. */
export function splitPatch(patch: string): Map<string, string> {
  const out = new Map<string, string>();
  const parts = patch.split(/^(?=diff --git )/m);
  for (const p of parts) {
    if (!p.startsWith('diff --git ')) continue;
    const plus = /^\+\+\+ b\/(.*)$/m.exec(p);
    const head = /^diff --git a\/(.*?) b\/(.*)$/m.exec(p);
    const path = plus?.[1] ?? head?.[2] ?? '';
    out.set(path, p);
  }
  return out;
}

type DiffMode = 'run' | 'working-tree';

export function DiffTab({ runId }: { runId: string }) {
  const asked = new URLSearchParams(location.search).get('mode');
  const [mode, setMode] = useState<DiffMode>(asked === 'working-tree' ? 'working-tree' : 'run');
  const [note, setNote] = useState<string | null>(null);
  const [diff, setDiff] = useState<WorkspaceDiff | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const [selected, setSelected] = useState<string | null>(null);
  const load = async () => {
    setLoading(true);
    setErr(null);
    try {
      setDiff(await api(`api/runs/${enc(runId)}/workspace/diff`, { query: { mode } }));
    } catch (e) {
      setDiff(null);
      if (mode === 'run' && e instanceof ApiError && e.details?.reason === 'no_baseline') {
        // No baseline (not started, passive, too large): show the working tree instead.
        setNote(`No run baseline (${e.message}); showing the working tree against HEAD.`);
        setMode('working-tree');
        return;
      }
      setErr(errorText(e));
    } finally {
      setLoading(false);
    }
  };
  useEffect(() => {
    void load();
  }, [runId, mode]);
  const pieces = useMemo(() => (diff ? splitPatch(diff.patch) : new Map<string, string>()), [diff]);
  const shownPatch = selected && pieces.has(selected) ? pieces.get(selected)! : (diff?.patch ?? '');
  return (
    <div class="pad diff">
      <div class="toolbar">
        <select
          data-testid="diff-mode"
          value={mode}
          onChange={(e) => {
            setNote(null);
            setMode((e.currentTarget as HTMLSelectElement).value as DiffMode);
          }}
        >
          <option value="run">this run's changes</option>
          <option value="working-tree">working tree (HEAD)</option>
        </select>
        <button onClick={load} disabled={loading}>
          {loading ? 'Loading…' : 'Refresh'}
        </button>
        {diff && (
          <span class="small">
            {diff.stats.files} files <span class="add">+{diff.stats.additions}</span> <span class="del">−{diff.stats.deletions}</span>
            {diff.truncated ? ` · truncated (${diff.truncatedReason})` : ''}
          </span>
        )}
      </div>
      {note && <div class="muted small">{note}</div>}
      {err && <div class="error">{err}</div>}
      {diff && (
        <div class="split">
          <ul class="file-list">
            {diff.files.length === 0 && <li class="muted">No changes.</li>}
            {diff.files.length > 0 && (
              <li>
                <a class={selected === null ? 'active' : ''} href="#" onClick={(e) => (e.preventDefault(), setSelected(null))}>
                  all files
                </a>
              </li>
            )}
            {diff.files.map((f) => (
              <li data-testid="diff-file" data-path={f.path} class={selected === f.path ? 'active' : ''}>
                <a href="#" onClick={(e) => (e.preventDefault(), setSelected(f.path))} title={f.oldPath ? `${f.oldPath} → ${f.path}` : f.path}>
                  <span class={'fstat fs-' + f.status}>{f.status[0].toUpperCase()}</span> {f.path}{' '}
                  {f.binary ? (
                    <span class="muted small">binary</span>
                  ) : (
                    <span class="small">
                      <span class="add">+{f.additions ?? '?'}</span> <span class="del">−{f.deletions ?? '?'}</span>
                    </span>
                  )}
                </a>
              </li>
            ))}
          </ul>
          <Patch text={shownPatch} testid="diff-patch" />
        </div>
      )}
    </div>
  );
}

// ---------------- files ----------------

interface FileEntry {
  name: string;
  path: string;
  type: string;
  size: number | null;
  modifiedAt: string;
}

export function Files({ runId }: { runId: string }) {
  const [dir, setDir] = useState('');
  const [entries, setEntries] = useState<FileEntry[]>([]);
  const [truncated, setTruncated] = useState(false);
  const [q, setQ] = useState('');
  const [results, setResults] = useState<FileEntry[] | null>(null);
  const [preview, setPreview] = useState<{ path: string; content?: string; error?: string } | null>(null);
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => {
    setErr(null);
    api(`api/runs/${enc(runId)}/workspace/files`, { query: { path: dir || undefined } })
      .then((r) => {
        setEntries(r.entries ?? []);
        setTruncated(!!r.truncated);
      })
      .catch((e) => setErr(errorText(e)));
  }, [runId, dir]);
  useEffect(() => {
    if (!q.trim()) {
      setResults(null);
      return;
    }
    const t = setTimeout(() => {
      api(`api/runs/${enc(runId)}/workspace/search`, { query: { q: q.trim(), limit: 200 } })
        .then((r) => setResults(r.results ?? []))
        .catch((e) => setErr(errorText(e)));
    }, 200);
    return () => clearTimeout(t);
  }, [runId, q]);
  const open = (e: FileEntry) => {
    if (e.type === 'directory') {
      setDir(e.path);
      setQ('');
      return;
    }
    setPreview({ path: e.path });
    api(`api/runs/${enc(runId)}/workspace/file`, { query: { path: e.path } })
      .then((r) => setPreview({ path: e.path, content: r.content }))
      .catch((er) => setPreview({ path: e.path, error: errorText(er) }));
  };
  const download = async (path: string) => {
    try {
      const res = await rawRequest(`api/runs/${enc(runId)}/workspace/raw?path=${enc(path)}`, { method: 'GET' });
      saveBlob(await res.blob(), path.split('/').pop() || 'file');
    } catch (e) {
      setErr(errorText(e));
    }
  };
  const crumbs = dir ? dir.split('/') : [];
  const list = results ?? entries;
  return (
    <div class="pad files">
      <div class="toolbar">
        <input type="search" data-testid="file-search" placeholder="Search paths" value={q} onInput={(e) => setQ((e.currentTarget as HTMLInputElement).value)} />
        <span class="crumbs small">
          <a href="#" onClick={(e) => (e.preventDefault(), setDir(''))}>
            cwd
          </a>
          {crumbs.map((c, i) => (
            <>
              {' / '}
              <a href="#" onClick={(e) => (e.preventDefault(), setDir(crumbs.slice(0, i + 1).join('/')))}>
                {c}
              </a>
            </>
          ))}
        </span>
      </div>
      {err && <div class="error">{err}</div>}
      <div class="split">
        <ul class="file-list">
          {dir && !results && (
            <li>
              <a href="#" onClick={(e) => (e.preventDefault(), setDir(crumbs.slice(0, -1).join('/')))}>
                ..
              </a>
            </li>
          )}
          {list.map((f) => (
            <li data-testid="file-entry" data-path={f.path} class={preview?.path === f.path ? 'active' : ''}>
              <a href="#" onClick={(e) => (e.preventDefault(), open(f))}>
                {f.type === 'directory' ? '📁 ' : f.type === 'symlink' ? '↪ ' : '📄 '}
                {results ? f.path : f.name}
              </a>{' '}
              <span class="muted small">{f.size !== null ? bytes(f.size) : ''}</span>
            </li>
          ))}
          {truncated && !results && <li class="muted small">listing truncated</li>}
          {list.length === 0 && <li class="muted">Empty.</li>}
        </ul>
        <div class="preview" data-testid="file-preview">
          {!preview && <div class="muted">Pick a file to preview it.</div>}
          {preview && (
            <>
              <div class="toolbar small">
                <strong class="mono">{preview.path}</strong>
                <button onClick={() => download(preview.path)}>Download</button>
              </div>
              {preview.error && <div class="error">{preview.error}</div>}
              {preview.content !== undefined && <pre class="output file-content">{preview.content}</pre>}
              {!preview.error && preview.content === undefined && <div class="muted">Loading…</div>}
            </>
          )}
        </div>
      </div>
    </div>
  );
}

function saveBlob(blob: Blob, name: string) {
  const u = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = u;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(u), 10_000);
}

// ---------------- attachments ----------------

export function Attachments({ run }: { run: RunDetail }) {
  const [list, setList] = useState<Attachment[]>([]);
  const [err, setErr] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const load = () =>
    api(`api/runs/${enc(run.runId)}/attachments`, { query: { scope: 'group' } })
      .then((r) => setList(r.attachments ?? []))
      .catch((e) => setErr(errorText(e)));
  const own = (run.attachments ?? []).map((a) => a.attachmentId).join(',');
  useEffect(() => {
    void load();
  }, [run.runId, own]);
  const upload = async (files: FileList | null) => {
    if (!files || !files.length) return;
    setBusy(true);
    setErr(null);
    try {
      for (const f of Array.from(files)) {
        await rawRequest(`api/runs/${enc(run.runId)}/attachments`, {
          method: 'POST',
          headers: { 'X-Agentry-Attachment-Name': encodeURIComponent(f.name), 'Content-Type': f.type || 'application/octet-stream' },
          body: f,
        });
      }
      await load();
    } catch (e) {
      setErr(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const download = async (a: Attachment) => {
    try {
      const res = await rawRequest(`api/runs/${enc(run.runId)}/attachments/${enc(a.attachmentId)}/content`, { method: 'GET' });
      saveBlob(await res.blob(), a.name);
    } catch (e) {
      setErr(errorText(e));
    }
  };
  const remove = async (a: Attachment) => {
    setErr(null);
    try {
      await api(`api/runs/${enc(run.runId)}/attachments/${enc(a.attachmentId)}`, { method: 'DELETE' });
      await load();
    } catch (e) {
      setErr(errorText(e));
    }
  };
  return (
    <div class="pad attachments">
      <div class="toolbar">
        <label class="button">
          {busy ? 'Uploading…' : 'Upload files'}
          <input type="file" multiple data-testid="attachment-upload" hidden disabled={busy} onChange={(e) => upload((e.currentTarget as HTMLInputElement).files)} />
        </label>
        <span class="muted small">Attachments of the run's group; the agent reads them at its next session.</span>
      </div>
      {err && <div class="error">{err}</div>}
      {list.length === 0 && <div class="muted">No attachments.</div>}
      <table class="small att-table">
        <tbody>
          {list.map((a) => (
            <tr data-testid="attachment" data-attachment-id={a.attachmentId}>
              <td>
                <a href="#" onClick={(e) => (e.preventDefault(), download(a))}>
                  {a.name}
                </a>
              </td>
              <td class="muted">{bytes(a.size)}</td>
              <td class="muted">{a.contentType}</td>
              <td class="muted">{a.runId === run.runId ? 'this run' : a.runId}</td>
              <td>
                {a.runId === run.runId && (
                  <button data-testid="attachment-delete" onClick={() => remove(a)}>
                    Delete
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
