// Boot (app config, daemon, token), the shell (nav, connection state, theme) and routes.

import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, connectionState, errorText, getToken, onConnectionState, onUnauthenticated, setToken } from '../lib/api';
import { currentAppPath, linkProps, navigate, useRoute } from '../lib/router';
import { summaries } from '../lib/summaries';
import { toggleTheme } from '../lib/theme';
import { Board } from './board/Board';
import { Definitions } from './definitions/Definitions';
import { System } from './definitions/System';
import { Members } from './Members';
import { NewRun } from './new-run/NewRun';
import { RunView } from './run/RunView';

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

function TokenPrompt({ error, onToken }: { error: string | null; onToken: (t: string) => void }) {
  const [value, setValue] = useState('');
  return (
    <div class="token-page">
      <form
        class="form token-form"
        data-testid="token-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (value.trim()) onToken(value.trim());
        }}
      >
        <h1>agentry</h1>
        <p class="muted">This daemon requires its access token (AGENTRY_DAEMON_TOKEN). It is kept for this tab only.</p>
        <label>
          <span>Token</span>
          <input name="token" type="password" autoComplete="off" autoFocus value={value} onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)} />
        </label>
        {error && (
          <div class="error" data-testid="token-error" role="alert">
            {error}
          </div>
        )}
        <button type="submit" class="primary">
          Connect
        </button>
      </form>
    </div>
  );
}

function ConnectionState() {
  const [s, setS] = useState(connectionState());
  useEffect(() => onConnectionState(setS), []);
  return (
    <span class={'conn conn-' + s} data-testid="connection-state" title="event streams">
      {s}
    </span>
  );
}

function Shell() {
  const route = useRoute();
  useEffect(() => {
    // Esc goes back to the board from any view (after leaving a field it was typing in).
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented) return;
      const t = e.target as HTMLElement;
      if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT')) {
        t.blur();
        return;
      }
      if (currentAppPath() !== '/') navigate('/');
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  const nav = (testid: string, path: string, label: string, active: boolean) => (
    <a data-testid={testid} class={'nav' + (active ? ' active' : '')} {...linkProps(path)}>
      {label}
    </a>
  );
  return (
    <div class="shell">
      <header class="topbar">
        <a class="brand" {...linkProps('/')}>
          agentry
        </a>
        <nav class="navs">
          {nav('nav-board', '/', 'Board', route.view === 'board' || route.view === 'run')}
          {nav('nav-definitions', '/definitions', 'Definitions', route.view === 'definitions')}
          {nav('nav-system', '/system', 'System', route.view === 'system')}
          {nav('nav-members', '/members', 'Members', route.view === 'members')}
        </nav>
        <span class="spacer" />
        <ConnectionState />
        <a data-testid="new-run" class="button primary" {...linkProps('/new')}>
          + New<span class="wide"> run</span>
        </a>
        <button data-testid="theme-toggle" class="icon" title="Toggle theme" onClick={() => toggleTheme()}>
          ◐
        </button>
      </header>
      <main class="main">
        {route.view === 'board' && <Board />}
        {route.view === 'run' && <RunView key={route.runId} runId={route.runId} tab={route.tab} />}
        {route.view === 'new' && <NewRun />}
        {route.view === 'definitions' && <Definitions />}
        {route.view === 'system' && <System />}
        {route.view === 'members' && <Members />}
        {route.view === 'notfound' && (
          <div class="pad">
            <h1>Not found</h1>
            <p class="muted">Nothing lives at {route.path}.</p>
            <a {...linkProps('/')}>Back to the board</a>
          </div>
        )}
      </main>
    </div>
  );
}
