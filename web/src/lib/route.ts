// The dashboard's routes, relative to the base path the daemon serves it under.

/** The pathname of the document's base URL, always ending with '/'. */
export function basePathOf(baseURI: string): string {
  const p = new URL(baseURI).pathname;
  return p.endsWith('/') ? p : p.slice(0, p.lastIndexOf('/') + 1);
}

/** A location pathname made relative to the base: '/' for the board, '/runs/x', ... */
export function stripBase(pathname: string, basePath: string): string {
  const base = basePath.endsWith('/') ? basePath : basePath + '/';
  let rest: string;
  if (pathname === base.slice(0, -1) || pathname === base) rest = '';
  else if (pathname.startsWith(base)) rest = pathname.slice(base.length);
  else rest = pathname.replace(/^\/+/, '');
  rest = rest.replace(/\/+$/, '');
  return '/' + rest;
}

/** The pathname to push for an app path ('/runs/x' under base '/agentry/' is '/agentry/runs/x'). */
export function withBase(appPath: string, basePath: string): string {
  const base = basePath.endsWith('/') ? basePath : basePath + '/';
  return base + appPath.replace(/^\/+/, '');
}

export const RUN_TABS = ['timeline', 'tasks', 'approvals', 'queue', 'sessions', 'audit', 'diff', 'files', 'attachments', 'browser'] as const;
export type RunTab = (typeof RUN_TABS)[number];

export type Route =
  | { view: 'board' }
  | { view: 'run'; runId: string; tab: RunTab }
  | { view: 'new' }
  | { view: 'definitions' }
  | { view: 'system' }
  | { view: 'members' }
  | { view: 'notfound'; path: string };

export function parseRoute(appPath: string): Route {
  const parts = appPath.split('/').filter(Boolean).map((p) => {
    try {
      return decodeURIComponent(p);
    } catch {
      return p;
    }
  });
  if (parts.length === 0) return { view: 'board' };
  if (parts[0] === 'runs' && parts.length >= 2 && parts.length <= 3) {
    const tab = (parts[2] ?? 'timeline') as RunTab;
    if (!RUN_TABS.includes(tab)) return { view: 'notfound', path: appPath };
    return { view: 'run', runId: parts[1], tab };
  }
  if (parts.length === 1 && parts[0] === 'new') return { view: 'new' };
  if (parts.length === 1 && parts[0] === 'definitions') return { view: 'definitions' };
  if (parts.length === 1 && parts[0] === 'system') return { view: 'system' };
  if (parts.length === 1 && parts[0] === 'members') return { view: 'members' };
  return { view: 'notfound', path: appPath };
}

export function runPath(runId: string, tab?: RunTab): string {
  const p = `/runs/${encodeURIComponent(runId)}`;
  return tab && tab !== 'timeline' ? `${p}/${tab}` : p;
}
