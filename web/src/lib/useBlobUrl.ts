// Bytes the API serves only with the bearer token (workspace raw files, attachment
// contents) as an object URL an <img> can show: fetched with the token, revoked when the
// view moves on. A plain <img src> could not carry the token.

import { useEffect, useState } from 'preact/hooks';
import { errorText, rawRequest } from './api';

export interface BlobUrl {
  url: string | null;
  error: string | null;
}

/** The object URL of `path`'s bytes typed as `type` (null path: nothing fetched). */
export function useBlobUrl(path: string | null, type: string): BlobUrl {
  const [state, setState] = useState<BlobUrl>({ url: null, error: null });
  useEffect(() => {
    setState({ url: null, error: null });
    if (!path) return;
    const abort = new AbortController();
    let made: string | null = null;
    rawRequest(path, { method: 'GET', signal: abort.signal })
      .then((res) => res.blob())
      .then((blob) => {
        // Typed by us, not by the answer (the raw route says octet-stream): an image only.
        made = URL.createObjectURL(new Blob([blob], { type }));
        setState({ url: made, error: null });
      })
      .catch((e) => !abort.signal.aborted && setState({ url: null, error: errorText(e) }));
    return () => {
      abort.abort();
      if (made) URL.revokeObjectURL(made);
    };
  }, [path, type]);
  return state;
}
