// One definition's whole file as the daemon reads it, loaded when opened: its warnings,
// its fields, and its instructions apart.

import { api, errorText } from '../../lib/api';
import { useResource } from '../../lib/resource';

export function DefinitionDetail({ path, key1 }: { path: string; key1: string }) {
  const res = useResource<Record<string, any>>(async (signal) => {
    const r = await api(path, { signal });
    return r[key1] ?? r;
  }, [path]);
  if (res.error) return <div class="error">{errorText(res.error)}</div>;
  const d = res.data;
  if (d === null) return <div class="muted small">Loading…</div>;
  const inner: Record<string, any> = Object.values(d).find((v) => v && typeof v === 'object' && !Array.isArray(v)) ?? {};
  const { instructions, ...fields } = inner;
  return (
    <div class="def-detail small">
      {(d.warnings ?? []).map((w: any) => (
        <div class="warn-text">
          ⚠ {w.field ? w.field + ': ' : ''}
          {w.message}
        </div>
      ))}
      <pre class="output">{JSON.stringify(fields, null, 2)}</pre>
      {instructions && (
        <>
          <div class="muted">instructions</div>
          <pre class="output">{instructions}</pre>
        </>
      )}
    </div>
  );
}
