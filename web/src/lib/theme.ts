const KEY = 'agentry.theme';

export type Theme = 'light' | 'dark';

export function systemTheme(): Theme {
  return typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export function storedTheme(): Theme | null {
  try {
    const t = localStorage.getItem(KEY);
    return t === 'light' || t === 'dark' ? t : null;
  } catch {
    return null;
  }
}

export function applyTheme(t: Theme): void {
  document.documentElement.dataset.theme = t;
}

export function toggleTheme(): Theme {
  const next: Theme = (document.documentElement.dataset.theme as Theme) === 'dark' ? 'light' : 'dark';
  try {
    localStorage.setItem(KEY, next);
  } catch {
    /* storage unavailable */
  }
  applyTheme(next);
  return next;
}

export function initTheme(): void {
  applyTheme(storedTheme() ?? systemTheme());
  if (typeof matchMedia === 'function') {
    matchMedia('(prefers-color-scheme: dark)').addEventListener?.('change', () => {
      if (!storedTheme()) applyTheme(systemTheme());
    });
  }
}
