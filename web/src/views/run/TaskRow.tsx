// One task: status and notes edited in place and saved together; a pending one can be
// deleted. A change the agent makes shows unless the user has edited that field.

import { useState } from 'preact/hooks';
import { api, errorText } from '../../lib/api';
import type { Task } from '../../lib/types';
import { Markdown } from '../Markdown';

const enc = encodeURIComponent;

const TASK_STATUSES = ['pending', 'in_progress', 'completed', 'blocked'];

export function TaskRow({ runId, task, canStatus, canNotes, canDelete }: { runId: string; task: Task; canStatus: boolean; canNotes: boolean; canDelete: boolean }) {
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
        <select data-testid="task-status" value={status} disabled={!canStatus} onChange={(e) => setStatus((e.currentTarget as HTMLSelectElement).value as Task['status'])}>
          {TASK_STATUSES.map((s) => (
            <option value={s}>{s}</option>
          ))}
        </select>
      </div>
      {task.body && <Markdown text={task.body} class="task-body small" />}
      {canNotes || !task.notes ? (
        <textarea data-testid="task-notes" rows={2} placeholder="notes" value={notes} disabled={!canNotes} onInput={(e) => setNotes((e.currentTarget as HTMLTextAreaElement).value)} />
      ) : (
        // Notes this run may not edit are read, so they are shown rendered.
        <Markdown text={task.notes} class="task-notes small" testid="task-notes-view" />
      )}
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
