// The files the composer holds until its message goes: added by drop or picker (checked
// against the daemon's limits first), removable, then uploaded one by one with their
// progress; a file uploaded once is not uploaded again when the send is retried, and
// removing it then removes the attachment from the run as well.

import { useRef, useState } from 'preact/hooks';
import { api, errorText } from './api';
import { toUpload, type PendingFile } from './composer';
import { uploadProblem, type Uploader } from './upload';

export interface PendingUploads {
  files: PendingFile[];
  add: (list: Iterable<File>) => void;
  remove: (key: number) => Promise<void>;
  clear: () => void;
  /** Uploads what is not uploaded yet; false when one failed (its row says why). */
  uploadAll: (upload: Uploader) => Promise<boolean>;
}

export function usePendingUploads(runId: string): PendingUploads {
  const [files, setFiles] = useState<PendingFile[]>([]);
  // The File objects, by key: the state holds only what the list shows.
  const blobs = useRef(new Map<number, File>());
  const current = useRef<PendingFile[]>([]);
  const nextKey = useRef(1);
  const update = (fn: (fs: PendingFile[]) => PendingFile[]) => {
    current.current = fn(current.current);
    setFiles(current.current);
  };
  const patch = (key: number, p: Partial<PendingFile>) => update((fs) => fs.map((f) => (f.key === key ? { ...f, ...p } : f)));

  return {
    files,
    add(list) {
      const added: PendingFile[] = [];
      for (const file of list) {
        const key = nextKey.current++;
        const problem = uploadProblem(file);
        blobs.current.set(key, file);
        added.push({ key, name: file.name, size: file.size, state: problem ? 'failed' : 'waiting', progress: 0, error: problem, attachmentId: null });
      }
      update((fs) => [...fs, ...added]);
    },
    async remove(key) {
      const f = current.current.find((x) => x.key === key);
      if (f?.attachmentId) {
        try {
          await api(`api/runs/${encodeURIComponent(runId)}/attachments/${encodeURIComponent(f.attachmentId)}`, { method: 'DELETE' });
        } catch (e) {
          patch(key, { error: `removing it from the run failed: ${errorText(e)}` });
          return;
        }
      }
      blobs.current.delete(key);
      update((fs) => fs.filter((x) => x.key !== key));
    },
    clear() {
      blobs.current.clear();
      update(() => []);
    },
    async uploadAll(upload) {
      for (const f of toUpload(current.current)) {
        const blob = blobs.current.get(f.key);
        if (!blob) continue;
        const problem = uploadProblem(blob);
        if (problem) {
          patch(f.key, { state: 'failed', error: problem });
          return false;
        }
        patch(f.key, { state: 'uploading', progress: 0, error: null });
        try {
          const a = await upload(runId, blob, (progress) => patch(f.key, { progress }));
          patch(f.key, { state: 'done', progress: 1, attachmentId: a.attachmentId });
        } catch (e) {
          patch(f.key, { state: 'failed', error: errorText(e) });
          return false;
        }
      }
      return true;
    },
  };
}
