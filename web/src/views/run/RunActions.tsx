// The run's action buttons (from its capabilities), the inline edit of name, note or
// group, and the delete confirmation. Starting, resuming and queueing carry a message:
// the composer (composer/Composer.tsx) sends them.

import { useState } from 'preact/hooks';
import { api, errorText } from '../../lib/api';
import { navigate } from '../../lib/router';
import { actionClass, actionLabel, runActions, type ActionName } from '../../lib/runActions';
import type { RunDetail } from '../../lib/types';

const enc = encodeURIComponent;

type Editing = null | 'rename' | 'note' | 'group';

export function RunActions({ run, onRun }: { run: RunDetail; onRun: (r: RunDetail) => void }) {
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<string | null>(null);
  const [editing, setEditing] = useState<Editing>(null);
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
  const edit = (what: Exclude<Editing, null>, text: string | null | undefined) => {
    setEditText(text ?? '');
    setEditing(what);
  };

  const runAction = (a: ActionName) => {
    switch (a) {
      case 'ready':
      case 'archive':
      case 'unarchive':
      case 'reset':
        return act(() => post(a));
      case 'abort':
        return act(() => post('abort', {}), () => setInfo('Abort requested; the status follows when the backend stops.'));
      case 'delete':
        return setConfirming(true);
      case 'pin':
        return act(() => post('pinned', { pinned: !run.pinned }));
      case 'rename':
        return edit('rename', run.name);
      case 'note':
        return edit('note', run.note);
      case 'group':
        return edit('group', run.runGroupId);
    }
  };

  const saveEdit = () => {
    const v = editText;
    if (editing === 'rename') act(() => post('name', { name: v.trim() ? v.trim() : null }), () => setEditing(null));
    else if (editing === 'note') act(() => post('note', { note: v.trim() ? v : null }), () => setEditing(null));
    else if (editing === 'group')
      act(() => (v.trim() && v.trim() !== run.runId ? post('group', { runGroupId: v.trim() }) : post('group/clear')), () => setEditing(null));
  };

  return (
    <>
      <div class="actions">
        <div class="buttons">
          {runActions(run).map((a) => (
            <button data-testid={'action-' + a} class={actionClass(a)} disabled={busy} onClick={() => runAction(a)}>
              {actionLabel(a, !!run.pinned)}
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
    </>
  );
}
