// The shell: top bar (navigation, connection state, new run, theme, key help), Esc back
// to the board, `?` for the key bindings, and the view of the route.

import { useEffect, useState } from 'preact/hooks';
import { isTyping } from '../../lib/keys';
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

export function Shell() {
  const route = useRoute();
  const [help, setHelp] = useState(false);
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
      if (help) {
        setHelp(false);
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
  }, [help]);
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
        <button data-testid="keys-help-toggle" class="icon" title="Key bindings (?)" onClick={() => setHelp((open) => !open)}>
          ?
        </button>
      </header>
      {help && <KeyHelp onClose={() => setHelp(false)} />}
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
