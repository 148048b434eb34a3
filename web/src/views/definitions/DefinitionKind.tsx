// One kind of definition (agents, assignments, ...): its load warnings and its entries,
// each opening to its whole file (DefinitionDetail).

import { useState } from 'preact/hooks';
import { api, errorText } from '../../lib/api';
import { useResource } from '../../lib/resource';
import { DefinitionDetail } from './DefinitionDetail';

interface ListResult {
  kind: string;
  entries: Array<Record<string, any>>;
  warnings: Array<{ path: string; field: string; message: string }>;
}

/** `label` names the kind on the page, `path` is its API route, `listKey` the answer's list and `key1` one entry's. */
export function DefinitionKind({ label, path, listKey, key1 }: { label: string; path: string; listKey: string; key1: string }) {
  const [open, setOpen] = useState<Record<string, boolean>>({});
  const res = useResource<ListResult>(async (signal) => (await api(path, { signal }))[listKey], [path]);
  // undefined while loading, else the error's text or the list.
  const l: ListResult | string | undefined = res.error ? errorText(res.error) : (res.data ?? undefined);
  return (
    <div class="def-kind" data-testid={'definitions-' + label.replace(' ', '-')}>
      <h2>{label}</h2>
      {l === undefined && <div class="muted">Loading…</div>}
      {typeof l === 'string' && <div class="error">{l}</div>}
      {l && typeof l !== 'string' && (
        <>
          {l.warnings.length > 0 && (
            <ul class="warnings" data-testid="definition-warnings">
              {l.warnings.map((w) => (
                <li class="warn-text small">
                  ⚠ <span class="mono">{w.path}</span>
                  {w.field ? ` · ${w.field}` : ''}: {w.message}
                </li>
              ))}
            </ul>
          )}
          {l.entries.length === 0 && <div class="muted">None.</div>}
          <table class="small defs">
            <tbody>
              {l.entries.map((e) => (
                <>
                <tr data-testid="definition" data-name={e.name}>
                  <td>
                    <details onToggle={(ev) => setOpen((o) => ({ ...o, [label + e.name]: (ev.currentTarget as HTMLDetailsElement).open }))}>
                      <summary>
                        <strong>{e.name}</strong>
                      </summary>
                    </details>
                  </td>
                  <td>{e.description}</td>
                  <td class="muted">
                    {e.backend ?? ''}
                    {e.model ? ' · ' + e.model : ''}
                    {Array.isArray(e.vars) && e.vars.length ? 'vars: ' + e.vars.join(', ') : ''}
                    {e.taskCount ? ` · ${e.taskCount} tasks` : ''}
                    {Array.isArray(e.command) ? e.command.join(' ') : ''}
                  </td>
                  <td class="muted mono">{e.sourcePath}</td>
                </tr>
                {open[label + e.name] && (
                  <tr>
                    <td colSpan={4}>
                      <DefinitionDetail path={`${path}/${encodeURIComponent(e.name)}`} key1={key1} />
                    </td>
                  </tr>
                )}
                </>
              ))}
            </tbody>
          </table>
        </>
      )}
    </div>
  );
}
