// The system page: this daemon and the backends with their load errors (the store's
// members have a view of their own, views/members/).

import { api, errorText } from '../../lib/api';
import { time } from '../../lib/format';
import { useResource } from '../../lib/resource';
import { linkProps } from '../../lib/router';

export function System() {
  const daemonRes = useResource<Record<string, any>>(async (signal) => (await api('api/daemon', { signal })).daemon, []);
  const backendsRes = useResource<{ backends: Array<Record<string, any>>; loadErrors: Array<Record<string, any>> }>((signal) => api('api/backends', { signal }), []);
  const daemon = daemonRes.data;
  const backends = backendsRes.data;
  const failed = backendsRes.error ?? daemonRes.error;
  const err = failed ? errorText(failed) : null;
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
