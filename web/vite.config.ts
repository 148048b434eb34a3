import { defineConfig } from 'vitest/config';

// Relative asset URLs: the daemon serves index.html for every deep link and rewrites its
// <base href>, so every asset and API URL resolves against document.baseURI.
export default defineConfig({
  base: './',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { target: 'es2022', outDir: 'dist', assetsDir: 'assets' },
  test: { environment: 'node', include: ['src/**/*.test.ts'] },
});
