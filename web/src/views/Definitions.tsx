// Definitions (agents, assignments, launchers, task definitions) with load warnings; and
// the system page: daemon and backends with load errors (the store's members have a view
// of their own, Members.tsx).

import { useEffect, useState } from 'preact/hooks';
import { api, errorText } from '../lib/api';
import { time } from '../lib/format';
import { linkProps } from '../lib/router';

interface ListResult {
  kind: string;
  entries: Array<Record<string, any>>;
  warnings: Array<{ path: string; field: string; message: string }>;
}

const KINDS: Array<[string, string, string, string]> = [
  ['agents', 'api/agents', 'agents', 'agent'],
  ['assignments', 'api/assignments', 'assignments', 'assignment'],
  ['launchers', 'api/launchers', 'launchers', 'launcher'],
  ['environments', 'api/environments', 'environments', 'environment'],
  ['task definitions', 'api/task-definitions', 'taskDefinitions', 'taskDefinition'],
];

/** One definition's whole file as the daemon reads it, loaded when opened. */
function DefinitionDetail({ path, key1 }: { path: string; key1: string }) {
  const [d, setD] = useState<Record<string, any> | string | null>(null);
  useEffect(() => {
    api(path)
      .then((r) => setD(r[key1] ?? r))
      .catch((e) => setD(errorText(e)));
  }, [path]);
  if (d === null) return <div class="muted small">Loading…</div>;
  if (typeof d === 'string') return <div class="error">{d}</div>;
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

export function Definitions() {
  const [lists, setLists] = useState<Record<string, ListResult | string>>({});
  const [open, setOpen] = useState<Record<string, boolean>>({});
  useEffect(() => {
    for (const [label, path, key] of KINDS) {
      api(path)
        .then((r) => setLists((m) => ({ ...m, [label]: r[key] })))
        .catch((e) => setLists((m) => ({ ...m, [label]: errorText(e) })));
    }
  }, []);
  return (
    <section class="pad definitions" data-testid="definitions">
      <h1>Definitions</h1>
      {KINDS.map(([label, path, , key1]) => {
        const l = lists[label];
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
      })}
    </section>
  );
}

export function System() {
  const [daemon, setDaemon] = useState<Record<string, any> | null>(null);
  const [backends, setBackends] = useState<{ backends: Array<Record<string, any>>; loadErrors: Array<Record<string, any>> } | null>(null);
  const [err, setErr] = useState<string | null>(null);
  useEffect(() => {
    api('api/daemon')
      .then((r) => setDaemon(r.daemon))
      .catch((e) => setErr(errorText(e)));
    api('api/backends')
      .then(setBackends)
      .catch((e) => setErr(errorText(e)));
  }, []);
  return (
    <section class="pad system" data-testid="system">
      <h1>System</h1>
      {err && <div class="error">{err}</div>}
      {daemon && (
        <table class="small kv" data-testid="daemon-info">
          <tbody>
            <tr>
              <th>version</th>
              <td>{daemon.version}</td>
            </tr>
            <tr>
              <th>instance</th>
              <td class="mono">{daemon.daemonInstanceId}</td>
            </tr>
            <tr>
              <th>pid</th>
              <td>{daemon.pid}</td>
            </tr>
            <tr>
              <th>listening</th>
              <td class="mono">{daemon.listenUrl}</td>
            </tr>
            {daemon.socketUrl && (
              <tr>
                <th>socket</th>
                <td class="mono">{daemon.socketUrl}</td>
              </tr>
            )}
            <tr>
              <th>started</th>
              <td>{time(daemon.startedAt)}</td>
            </tr>
          </tbody>
        </table>
      )}
      <p class="muted small">
        Every daemon serving this store, with its state and load: <a {...linkProps('/members')}>Members</a>.
      </p>
      <h2>Backends</h2>
      {backends && (
        <>
          <table class="small defs" data-testid="backends">
            <tbody>
              {backends.backends.map((b) => (
                <tr data-testid="backend" data-backend-id={b.id}>
                  <td>
                    <strong>{b.id}</strong>
                  </td>
                  <td>{b.name}</td>
                  <td class="muted">
                    {b.vendor} {b.version} {b.abiVersion ? `· ABI ${b.abiVersion}` : ''}
                  </td>
                  <td>{b.description}</td>
                  <td class="muted small">{Array.isArray(b.features) ? b.features.join(', ') : ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {backends.loadErrors.length > 0 && (
            <>
              <h2>Load errors</h2>
              <ul class="warnings" data-testid="backend-load-errors">
                {backends.loadErrors.map((e) => (
                  <li class="error-text small">
                    <span class="mono">{e.path}</span>: {e.message}
                    {e.details && <code class="muted"> {JSON.stringify(e.details)}</code>}
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </section>
  );
}
