// The shell: top bar (navigation, connection state, new run, theme), Esc back to the
// board, and the view of the route.

import { useEffect } from 'preact/hooks';
import { currentAppPath, linkProps, navigate, useRoute } from '../../lib/router';
import { toggleTheme } from '../../lib/theme';
import { Board } from '../board/Board';
import { Definitions } from '../definitions/Definitions';
import { System } from '../definitions/System';
import { Members } from '../members/Members';
import { NewRun } from '../new-run/NewRun';
import { RunView } from '../run/RunView';
import { ConnectionState } from './ConnectionState';

export function Shell() {
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
