// The files going with the next message: a file picker (drops land on the whole
// composer), and each file's size, upload progress or error, removable before sending.

import { useRef } from 'preact/hooks';
import { bytes } from '../../../lib/format';
import type { PendingFile } from '../../../lib/composer';

interface Props {
  files: PendingFile[];
  disabled: boolean;
  onAdd: (files: File[]) => void;
  onRemove: (key: number) => void;
}

const STATE_TEXT: Record<PendingFile['state'], string> = { waiting: 'to upload', uploading: 'uploading', done: 'uploaded', failed: 'failed' };

export function ComposerAttachments({ files, disabled, onAdd, onRemove }: Props) {
  const picker = useRef<HTMLInputElement>(null);
  return (
    <div class="composer-files">
      <input
        ref={picker}
        type="file"
        multiple
        hidden
        data-testid="composer-file-input"
        onChange={(e) => {
          const input = e.currentTarget as HTMLInputElement;
          onAdd(Array.from(input.files ?? []));
          input.value = '';
        }}
      />
      <button type="button" data-testid="composer-attach" disabled={disabled} onClick={() => picker.current?.click()} title="Attach files (or drop them on the composer)">
        Attach…
      </button>
      {files.length > 0 && (
        <ul class="composer-file-list" data-testid="composer-files">
          {files.map((f) => (
            <li data-testid="composer-file" data-state={f.state} class={'composer-file st-' + f.state}>
              <span class="name">{f.name}</span>
              <span class="muted small">
                {bytes(f.size)} · {f.state === 'uploading' ? `${Math.round(f.progress * 100)}%` : STATE_TEXT[f.state]}
              </span>
              {f.state === 'uploading' && <progress max={1} value={f.progress} />}
              {f.error && (
                <span class="error-text small" data-testid="composer-file-error">
                  {f.error}
                </span>
              )}
              <button type="button" class="link" data-testid="composer-file-remove" disabled={disabled} onClick={() => onRemove(f.key)} title="Remove it">
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
