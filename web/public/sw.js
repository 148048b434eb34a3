// agentry's service worker: keeps the app shell (index.html and the hashed files under
// assets/) so the installed dashboard opens without a round trip, and opens a run when
// a notification it showed is clicked. It never answers for the API or its streams:
// only navigations to the dashboard's own routes and GETs under assets/ are handled,
// everything else goes to the network untouched. Registered by src/lib/serviceWorker.ts.
'use strict';

const SHELL_CACHE = 'agentry-shell-v1';
const ASSETS_CACHE = 'agentry-assets-v1';
const MAX_ASSETS = 80; // older builds' files are dropped past this many
// The scope is the dashboard's base path (AGENTRY_WEB_BASE_PATH), e.g. https://host/agentry/.
const SCOPE = new URL(self.registration.scope);
const SHELL_URL = new URL('./', SCOPE).href;

/** The path inside the scope ('api/runs', 'assets/index-x.js', 'runs/k3x'), or null outside it. */
function inScope(url) {
  if (url.origin !== SCOPE.origin || !url.pathname.startsWith(SCOPE.pathname)) return null;
  return url.pathname.slice(SCOPE.pathname.length);
}

/** A route of the app (index.html answers it): not the API, not a file (no dot in its last segment). */
function isAppRoute(path) {
  if (path === 'api' || path.startsWith('api/') || path === 'metrics' || path === 'mcp') return false;
  return !path.slice(path.lastIndexOf('/') + 1).includes('.');
}

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches.open(SHELL_CACHE).then((cache) => cache.add(new Request(SHELL_URL, { cache: 'no-cache' }))).then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  const keep = new Set([SHELL_CACHE, ASSETS_CACHE]);
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(names.filter((n) => n.startsWith('agentry-') && !keep.has(n)).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  );
});

// Navigations: the network first (a new build shows at once), the kept shell when offline.
async function shell(request) {
  const cache = await caches.open(SHELL_CACHE);
  try {
    const response = await fetch(request);
    if (response.ok && (response.headers.get('content-type') || '').startsWith('text/html'))
      await cache.put(SHELL_URL, response.clone());
    return response;
  } catch (e) {
    const kept = await cache.match(SHELL_URL);
    if (kept) return kept;
    throw e;
  }
}

// Hashed files never change: the kept copy first, else the network's, kept.
async function asset(request) {
  const cache = await caches.open(ASSETS_CACHE);
  const kept = await cache.match(request);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok) {
    await cache.put(request, response.clone());
    const keys = await cache.keys();
    for (const old of keys.slice(0, Math.max(0, keys.length - MAX_ASSETS))) await cache.delete(old);
  }
  return response;
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const path = inScope(new URL(request.url));
  if (path === null) return;
  if (request.mode === 'navigate' && isAppRoute(path)) event.respondWith(shell(request));
  else if (path.startsWith('assets/') && !request.headers.has('authorization')) event.respondWith(asset(request));
});

// A click on a notification (shown here where the page could not, e.g. Chrome on
// Android): the dashboard's window, if one is open, is focused and told to open the
// run; else a new one opens on it.
self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const data = event.notification.data || {};
  const url = new URL(data.url || './', SCOPE).href;
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((windows) => {
      const open = windows.find((w) => inScope(new URL(w.url)) !== null);
      if (open) {
        open.postMessage({ type: 'agentry.open', path: data.path || '/' });
        return open.focus();
      }
      return self.clients.openWindow(url);
    }),
  );
});
