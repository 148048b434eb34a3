// The shell: top bar (navigation, connection state, new run, notifications, theme, key
// help), Esc back to the board, `?` for the key bindings, and the view of the route. On a
// phone the navigation sits at the bottom of the screen (styles.css, "phone").
// It also runs the notifier (lib/notifier.ts) while the dashboard is open.

import { useEffect, useState } from 'preact/hooks';
import { isTyping } from '../../lib/keys';
import { startNotifier } from '../../lib/notifier';
import { currentAppPath, linkProps, navigate, useRoute } from '../../lib/router';
import { toggleTheme } from '../../lib/theme';
import { Board } from '../board/Board';
import { Definitions } from '../definitions/Definitions';
import { System } from '../definitions/System';
import { Members } from '../members/Members';
import { NewRun } from '../new-run/NewRun';
import { RunView } from '../run/RunView';
import { ConnectionState } from './ConnectionState';
import { KeyHelp } from './KeyHelp';
import { Notifications } from './Notifications';

export function Shell() {
  const route = useRoute();
  const [help, setHelp] = useState(false);
  const [notify, setNotify] = useState(false);
  useEffect(() => startNotifier(), []);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      if (e.key === '?' && !isTyping(e.target) && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        setHelp((open) => !open);
        return;
      }
      if (e.key !== 'Escape') return;
      // Esc closes the key sheet; else leaves a field it was typing in; else goes back to the board.
      if (help || notify) {
        setHelp(false);
        setNotify(false);
        return;
      }
      if (isTyping(e.target)) {
        (e.target as HTMLElement).blur();
        return;
      }
      if (currentAppPath() !== '/') navigate('/');
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [help, notify]);
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
        <button data-testid="notify-toggle" class="icon" title="Notifications" aria-label="Notifications" onClick={() => setNotify((open) => !open)}>
          <svg width="14" height="14" viewBox="0 0 16 16" aria-hidden="true">
            <path d="M8 1.5a4.5 4.5 0 0 0-4.5 4.5v3L2 11.5h12L12.5 9V6A4.5 4.5 0 0 0 8 1.5ZM6.2 13a1.8 1.8 0 0 0 3.6 0" fill="none" stroke="currentColor" stroke-width="1.5" stroke-linejoin="round" />
          </svg>
        </button>
        <button data-testid="theme-toggle" class="icon" title="Toggle theme" onClick={() => toggleTheme()}>
          ◐
        </button>
        <button data-testid="keys-help-toggle" class="icon" title="Key bindings (?)" onClick={() => setHelp((open) => !open)}>
          ?
        </button>
      </header>
      {help && <KeyHelp onClose={() => setHelp(false)} />}
      {notify && <Notifications onClose={() => setNotify(false)} />}
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
