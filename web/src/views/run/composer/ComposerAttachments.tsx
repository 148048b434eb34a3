// The files going with the next message: each one's size, upload progress or error,
// removable before sending.

import { bytes } from '../../../lib/format';
import type { PendingFile } from '../../../lib/composer';

interface Props {
  files: PendingFile[];
  disabled: boolean;
  onRemove: (key: number) => void;
}

const STATE_TEXT: Record<PendingFile['state'], string> = { waiting: 'to upload', uploading: 'uploading', done: 'uploaded', failed: 'failed' };

export function ComposerAttachments({ files, disabled, onRemove }: Props) {
  if (files.length === 0) return null;
  return (
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
          <button type="button" class="link" data-testid="composer-file-remove" disabled={disabled} onClick={() => onRemove(f.key)} title="Remove it" aria-label={`Remove ${f.name}`}>
            ×
          </button>
        </li>
      ))}
    </ul>
  );
}
