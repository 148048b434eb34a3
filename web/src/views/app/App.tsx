// Boot: the daemon answers, or asks for the token (TokenPrompt), then the shell (Shell).

import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, errorText, getToken, onUnauthenticated, setToken } from '../../lib/api';
import { summaries } from '../../lib/summaries';
import { Shell } from './Shell';
import { TokenPrompt } from './TokenPrompt';

type Boot = { state: 'loading' } | { state: 'token'; error: string | null } | { state: 'ready' } | { state: 'failed'; error: string };

export function App() {
  const [boot, setBoot] = useState<Boot>({ state: 'loading' });

  const check = async (tokenError: string | null) => {
    try {
      await api('api/daemon');
      setBoot({ state: 'ready' });
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) {
        setBoot({ state: 'token', error: tokenError });
      } else {
        setBoot({ state: 'failed', error: errorText(e) });
      }
    }
  };

  useEffect(() => {
    // app-config.json's webBasePath is already in <base href> (the daemon writes it), which
    // every URL resolves against: no need to wait for it before the first request.
    void check(null);
    return onUnauthenticated(() => {
      summaries.stop();
      setBoot((b) => (b.state === 'token' ? b : { state: 'token', error: getToken() ? 'The token was refused.' : null }));
    });
  }, []);

  useEffect(() => {
    if (boot.state === 'ready') summaries.start();
  }, [boot.state]);

  if (boot.state === 'loading') return <div class="pad muted">Connecting to agentry…</div>;
  if (boot.state === 'failed')
    return (
      <div class="pad">
        <h1>agentry</h1>
        <div class="error">The daemon did not answer: {boot.error}</div>
        <button onClick={() => check(null)}>Retry</button>
      </div>
    );
  if (boot.state === 'token')
    return (
      <TokenPrompt
        error={boot.error}
        onToken={async (t) => {
          setToken(t);
          try {
            await api('api/daemon');
            setBoot({ state: 'ready' });
          } catch (e) {
            if (e instanceof ApiError && e.status === 401) {
              setToken(null);
              setBoot({ state: 'token', error: 'That token was refused. Try again.' });
            } else setBoot({ state: 'failed', error: errorText(e) });
          }
        }}
      />
    );
  return <Shell />;
}
