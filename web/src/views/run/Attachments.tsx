// The attachments of the run's group: listed (again whenever the run's own change),
// uploaded, previewed (AttachmentPreview), downloaded, and deleted when this run added them.

import { useState } from 'preact/hooks';
import { api, errorText, rawRequest } from '../../lib/api';
import { saveBlob } from '../../lib/download';
import { bytes } from '../../lib/format';
import { useResource } from '../../lib/resource';
import type { Attachment, RunDetail } from '../../lib/types';
import { AttachmentPreview } from './AttachmentPreview';

const enc = encodeURIComponent;

export function Attachments({ run }: { run: RunDetail }) {
  const [err, setErr] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [picked, setPicked] = useState<string | null>(null);
  // The detail stream names the run's own attachments: one added or removed elsewhere
  // (the agent, another tab) reloads the group's list.
  const own = (run.attachments ?? []).map((a) => a.attachmentId).join(',');
  const listing = useResource<{ attachments?: Attachment[] }>(
    (signal) => api(`api/runs/${enc(run.runId)}/attachments`, { query: { scope: 'group' }, signal }),
    [run.runId, own],
  );
  const list = listing.data?.attachments ?? [];
  const shown = list.find((a) => a.attachmentId === picked) ?? null;
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
      await listing.reload();
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
      await listing.reload();
    } catch (e) {
      setErr(errorText(e));
    }
  };
  const shownErr = err ?? (listing.error ? errorText(listing.error) : null);
  return (
    <div class="pad attachments">
      <div class="toolbar">
        <label class="button">
          {busy ? 'Uploading…' : 'Upload files'}
          <input type="file" multiple data-testid="attachment-upload" hidden disabled={busy} onChange={(e) => upload((e.currentTarget as HTMLInputElement).files)} />
        </label>
        <span class="muted small">Attachments of the run's group; the agent reads them at its next session.</span>
      </div>
      {shownErr && <div class="error">{shownErr}</div>}
      {list.length === 0 && <div class="muted">No attachments.</div>}
      <table class="small att-table">
        <tbody>
          {list.map((a) => (
            <tr data-testid="attachment" data-attachment-id={a.attachmentId}>
              <td>
                <a href="#" data-testid="attachment-open" onClick={(e) => (e.preventDefault(), setPicked(a.attachmentId))} title="Preview">
                  {a.name}
                </a>
              </td>
              <td class="muted">{bytes(a.size)}</td>
              <td class="muted">{a.contentType}</td>
              <td class="muted">{a.runId === run.runId ? 'this run' : a.runId}</td>
              <td>
                <button data-testid="attachment-download" onClick={() => download(a)}>
                  Download
                </button>{' '}
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
      {shown && <AttachmentPreview runId={run.runId} attachment={shown} />}
    </div>
  );
}
