// A tiny history router: location.pathname relative to the base path of document.baseURI.

import { useEffect, useState } from 'preact/hooks';
import { basePathOf, parseRoute, stripBase, withBase, type Route } from './route';

export function basePath(): string {
  return basePathOf(document.baseURI);
}

export function currentAppPath(): string {
  return stripBase(location.pathname, basePath());
}

export function hrefOf(appPath: string): string {
  return withBase(appPath, basePath());
}

const listeners = new Set<() => void>();

export function navigate(appPath: string, replace = false): void {
  const target = hrefOf(appPath);
  if (replace) history.replaceState(null, '', target);
  else if (target !== location.pathname) history.pushState(null, '', target);
  listeners.forEach((l) => l());
}

if (typeof window !== 'undefined') {
  window.addEventListener('popstate', () => listeners.forEach((l) => l()));
}

export function useRoute(): Route {
  const [path, setPath] = useState(currentAppPath());
  useEffect(() => {
    const l = () => setPath(currentAppPath());
    listeners.add(l);
    return () => {
      listeners.delete(l);
    };
  }, []);
  return parseRoute(path);
}

/** An in-app link: a real href (so it can open in a new tab), pushState on a plain click. */
export function linkProps(appPath: string) {
  return {
    href: hrefOf(appPath),
    onClick: (e: MouseEvent) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      navigate(appPath);
    },
  };
}
