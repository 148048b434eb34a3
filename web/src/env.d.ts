declare module '*.css';
// What vite replaces in import.meta.env (only what the app reads).
interface ImportMeta {
  readonly env: { readonly PROD: boolean; readonly DEV: boolean };
}
