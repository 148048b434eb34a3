// The run's tasks, each editable as its capabilities allow (TaskRow), and a new one.

import { useState } from 'preact/hooks';
import { api, errorText } from '../../lib/api';
import type { RunDetail } from '../../lib/types';
import { TaskRow } from './TaskRow';

const enc = encodeURIComponent;

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
