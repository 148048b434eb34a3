// The run's workspace: a directory listing with breadcrumbs, a path search, and a preview
// (with download) of the file picked: text with line numbers and colours (CodeView, where
// lines can be picked for review), an image inline (fetched with the token).

import { useEffect, useState } from 'preact/hooks';
import { api, errorText, rawRequest } from '../../lib/api';
import { baseName, saveBlob } from '../../lib/download';
import { imageTypeFor } from '../../lib/codeLines';
import { bytes } from '../../lib/format';
import { useResource } from '../../lib/resource';
import { CodeView } from './CodeView';
import { ImagePreview } from './ImagePreview';

const enc = encodeURIComponent;

interface FileEntry {
  name: string;
  path: string;
  type: string;
  size: number | null;
  modifiedAt: string;
}

/** Search waits this long after the last keystroke. */
const SEARCH_DELAY_MS = 200;

export function Files({ runId }: { runId: string }) {
  const [dir, setDir] = useState('');
  const [q, setQ] = useState('');
  const [preview, setPreview] = useState<{ path: string; content?: string; error?: string } | null>(null);
  const [err, setErr] = useState<string | null>(null);
  const listing = useResource<{ entries?: FileEntry[]; truncated?: boolean }>(
    (signal) => api(`api/runs/${enc(runId)}/workspace/files`, { query: { path: dir || undefined }, signal }),
    [runId, dir],
  );
  const query = q.trim();
  const search = useResource<{ results?: FileEntry[] }>(
    query ? (signal) => api(`api/runs/${enc(runId)}/workspace/search`, { query: { q: query, limit: 200 }, signal }) : null,
    [runId, q],
    { delayMs: SEARCH_DELAY_MS },
  );
  // A failed download's message goes when another directory is opened.
  useEffect(() => setErr(null), [runId, dir]);
  const entries = listing.data?.entries ?? [];
  const truncated = !!listing.data?.truncated;
  const results = search.data ? (search.data.results ?? []) : null;
  const open = (e: FileEntry) => {
    if (e.type === 'directory') {
      setDir(e.path);
      setQ('');
      return;
    }
    setPreview({ path: e.path });
    if (imageTypeFor(e.path)) return; // shown from the raw route, not the text preview
    api(`api/runs/${enc(runId)}/workspace/file`, { query: { path: e.path } })
      // An answer for a file no longer picked (another was clicked meanwhile) is dropped.
      .then((r) => setPreview((p) => (p?.path === e.path ? { path: e.path, content: r.content } : p)))
      .catch((er) => setPreview((p) => (p?.path === e.path ? { path: e.path, error: errorText(er) } : p)));
  };
  const download = async (path: string) => {
    try {
      const res = await rawRequest(`api/runs/${enc(runId)}/workspace/raw?path=${enc(path)}`, { method: 'GET' });
      saveBlob(await res.blob(), baseName(path));
    } catch (e) {
      setErr(errorText(e));
    }
  };
  const loadError = listing.error ?? search.error;
  const shownErr = err ?? (loadError ? errorText(loadError) : null);
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
      {shownErr && <div class="error">{shownErr}</div>}
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
              {imageTypeFor(preview.path) ? (
                <ImagePreview src={`api/runs/${enc(runId)}/workspace/raw?path=${enc(preview.path)}`} type={imageTypeFor(preview.path)!} alt={preview.path} />
              ) : (
                <>
                  {preview.content !== undefined && <CodeView runId={runId} path={preview.path} content={preview.content} />}
                  {!preview.error && preview.content === undefined && <div class="muted">Loading…</div>}
                </>
              )}
            </>
          )}
        </div>
      </div>
    </div>
  );
}
