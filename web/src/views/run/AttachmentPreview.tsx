// One attachment shown in place: an image inline, text as code, a PDF as a link that
// opens it in a new tab (from a blob URL: the content route needs the token), anything
// else only downloadable.

import { useEffect, useState } from 'preact/hooks';
import { errorText, rawRequest } from '../../lib/api';
import { previewOf } from '../../lib/codeLines';
import type { Attachment } from '../../lib/types';
import { useBlobUrl } from '../../lib/useBlobUrl';
import { CodeView } from './CodeView';
import { ImagePreview } from './ImagePreview';

const enc = encodeURIComponent;

function TextAttachment({ runId, src, name }: { runId: string; src: string; name: string }) {
  const [text, setText] = useState<{ content?: string; error?: string }>({});
  useEffect(() => {
    const abort = new AbortController();
    setText({});
    rawRequest(src, { method: 'GET', signal: abort.signal })
      .then((r) => r.text())
      .then((content) => setText({ content }))
      .catch((e) => !abort.signal.aborted && setText({ error: errorText(e) }));
    return () => abort.abort();
  }, [src]);
  if (text.error) return <div class="error">{text.error}</div>;
  if (text.content === undefined) return <div class="muted">Loading…</div>;
  return <CodeView runId={runId} path={name} content={text.content} />;
}

function PdfLink({ src, name }: { src: string; name: string }) {
  const blob = useBlobUrl(src, 'application/pdf');
  if (blob.error) return <div class="error">{blob.error}</div>;
  if (!blob.url) return <div class="muted">Loading…</div>;
  return (
    <a data-testid="attachment-pdf" href={blob.url} target="_blank" rel="noopener">
      Open {name} (PDF) in a new tab
    </a>
  );
}

export function AttachmentPreview({ runId, attachment: a }: { runId: string; attachment: Attachment }) {
  const src = `api/runs/${enc(runId)}/attachments/${enc(a.attachmentId)}/content`;
  const how = previewOf(a.contentType, a.name, a.size);
  return (
    <div class="preview" data-testid="attachment-preview" data-attachment-id={a.attachmentId}>
      <div class="toolbar small">
        <strong class="mono">{a.name}</strong>
      </div>
      {how?.kind === 'image' && <ImagePreview src={src} type={how.type} alt={a.name} />}
      {how?.kind === 'text' && <TextAttachment runId={runId} src={src} name={a.name} />}
      {how?.kind === 'pdf' && <PdfLink src={src} name={a.name} />}
      {!how && <div class="muted">No preview for this kind of file; download it.</div>}
    </div>
  );
}
