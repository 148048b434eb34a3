import type { ProxyOptions } from 'vite';
import { defineConfig } from 'vitest/config';

declare const process: { env: Record<string, string | undefined> };
const daemon = process.env.AGENTRY_URL ?? 'http://127.0.0.1:4773';
// The daemon refuses a foreign Origin; the dev server's requests are passed on as its own.
const toDaemon: ProxyOptions = {
  target: daemon,
  changeOrigin: true,
  headers: { Origin: daemon },
};

// Relative asset URLs: the daemon serves index.html for every deep link and rewrites its
// <base href>, so every asset and API URL resolves against document.baseURI.
export default defineConfig({
  base: './',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  // `npm run dev` proxies the API to a running daemon (AGENTRY_URL, default the usual port).
  server: {
    proxy: {
      '/api': toDaemon,
      '/app-config.json': toDaemon,
    },
  },
  build: { target: 'es2022', outDir: 'dist', assetsDir: 'assets' },
  // Files share their workers' module graph and environment (isolate: false): a fresh
  // one per file cost two thirds of the run (25 s -> 10 s here). A test that changes
  // global state puts it back (afterEach), as they all do.
  test: { environment: 'node', include: ['src/**/*.test.ts', 'src/**/*.test.tsx'], isolate: false },
});
