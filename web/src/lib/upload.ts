// Uploading a file as a run's attachment (POST /api/runs/:runId/attachments, the raw body
// is the file, its name in X-Agentry-Attachment-Name). XMLHttpRequest rather than fetch:
// only it reports the upload's progress.

import { ApiError, authHeaders, errorFromBody, notifyUnauthenticated, url } from './api';
import type { Attachment } from './types';

/** The daemon's limit for one file (docs/api.md, Attachments); larger ones are refused before sending. */
export const MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024;

export interface UploadFile {
  name: string;
  size: number;
  type: string;
}

/** Uploads one file; `onProgress` gets the fraction sent (0..1). Rejects with the error envelope as an ApiError. */
export type Uploader = (runId: string, file: UploadFile & Blob, onProgress: (fraction: number) => void, signal?: AbortSignal) => Promise<Attachment>;

/** A file that cannot be an attachment, said before anything is sent; null when it may be. */
export function uploadProblem(file: UploadFile): string | null {
  if (file.size > MAX_ATTACHMENT_BYTES) return `${file.name} is over the 25 MiB limit for an attachment`;
  const name = file.name.split(/[\\/]/).pop() ?? '';
  if (name === '' || name === '.' || name === '..') return `"${file.name}" is not a usable file name`;
  return null;
}

/** The upload's headers: the name percent-encoded (the daemon decodes UTF-8), the type when it is a plain type/subtype. */
export function uploadHeaders(file: UploadFile): Record<string, string> {
  const plain = /^[\w.+-]+\/[\w.+-]+$/.test(file.type);
  return {
    ...authHeaders(),
    Accept: 'application/json',
    'X-Agentry-Attachment-Name': encodeURIComponent(file.name),
    'Content-Type': plain ? file.type : 'application/octet-stream',
  };
}

export const uploadAttachment: Uploader = (runId, file, onProgress, signal) =>
  new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', url(`api/runs/${encodeURIComponent(runId)}/attachments`));
    for (const [k, v] of Object.entries(uploadHeaders(file))) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          onProgress(1);
          resolve(JSON.parse(xhr.responseText).attachment as Attachment);
        } catch {
          reject(new ApiError(xhr.status, 'HTTP', 'the upload answered without an attachment'));
        }
        return;
      }
      if (xhr.status === 401) notifyUnauthenticated();
      reject(errorFromBody(xhr.status, xhr.statusText, xhr.responseText));
    };
    xhr.onerror = () => reject(new ApiError(0, 'NETWORK', `uploading ${file.name} failed: the connection broke`));
    xhr.onabort = () => reject(new ApiError(0, 'ABORTED', `uploading ${file.name} was cancelled`));
    signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(file);
  });
