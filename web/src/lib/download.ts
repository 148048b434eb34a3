// Saving a blob the API answered as a file on the user's machine.

/** Offers `blob` as a download named `name` (a temporary object URL and a clicked link). */
export function saveBlob(blob: Blob, name: string): void {
  const u = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = u;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  // Revoked later, not at once: the browser may still be reading it.
  setTimeout(() => URL.revokeObjectURL(u), 10_000);
}

/** The last segment of a workspace path, the name a download is saved under. */
export function baseName(path: string): string {
  return path.split('/').pop() || 'file';
}
