// Registers public/sw.js (the app shell kept for the installed dashboard) in production
// builds on a secure context (https, or localhost / 127.0.0.1), with the dashboard's base
// path as its scope, and opens the run a clicked notification names (sw.js posts it).

import { navigate } from './router';

export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !window.isSecureContext || !('serviceWorker' in navigator)) return;
  const scope = new URL('./', document.baseURI).href;
  navigator.serviceWorker.register(new URL('sw.js', document.baseURI).href, { scope }).catch((e) => {
    console.warn('agentry: the service worker did not register:', e);
  });
  navigator.serviceWorker.addEventListener('message', (e: MessageEvent) => {
    const d = e.data;
    if (d?.type === 'agentry.open' && typeof d.path === 'string' && d.path.startsWith('/')) navigate(d.path);
  });
}
