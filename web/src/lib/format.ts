export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.round((now - t) / 1000);
  if (s < -60) return 'in ' + dur(-s);
  if (s < 5) return 'now';
  return dur(s) + ' ago';
}

export function dur(s: number): string {
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86400)}d`;
}

export function time(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

export function bytes(n: number | null | undefined): string {
  if (n === null || n === undefined) return '';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** Token counts short: 950, 12.3k, 4.5M. */
export function tokens(n: number | null | undefined): string {
  if (n === null || n === undefined) return '';
  if (n < 1000) return `${n}`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** A run's usage in a few words: "12.3k tok · $0.0412", "cost ?" when a model has no price. */
export function usageText(u: { inputTokens: number; cachedInputTokens: number; outputTokens: number; costUsd: number | null } | null | undefined): string {
  if (!u) return '';
  const total = u.inputTokens + u.cachedInputTokens + u.outputTokens;
  if (total === 0) return '';
  const cost = u.costUsd === null ? 'cost ?' : `$${u.costUsd.toFixed(4)}`;
  return `${tokens(total)} tok · ${cost}`;
}
