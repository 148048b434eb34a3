// An image the API serves with the token (a workspace file, an attachment), shown inline.

import { useBlobUrl } from '../../lib/useBlobUrl';

export function ImagePreview({ src, type, alt }: { src: string; type: string; alt: string }) {
  const blob = useBlobUrl(src, type);
  if (blob.error) return <div class="error">{blob.error}</div>;
  if (!blob.url) return <div class="muted">Loading…</div>;
  return <img class="image-preview" data-testid="image-preview" src={blob.url} alt={alt} />;
}
