import { describe, expect, it } from 'vitest';
import { tokens, usageText } from './format';

describe('usage text', () => {
  it('shortens token counts', () => {
    expect(tokens(950)).toBe('950');
    expect(tokens(12_340)).toBe('12.3k');
    expect(tokens(4_500_000)).toBe('4.5M');
  });
  it('shows a cost only when every model is priced', () => {
    expect(usageText({ inputTokens: 1000, cachedInputTokens: 200, outputTokens: 300, costUsd: 0.0412 })).toBe('1.5k tok · $0.0412');
    expect(usageText({ inputTokens: 10, cachedInputTokens: 0, outputTokens: 5, costUsd: null })).toBe('15 tok · cost ?');
    expect(usageText({ inputTokens: 0, cachedInputTokens: 0, outputTokens: 0, costUsd: 0 })).toBe('');
    expect(usageText(undefined)).toBe('');
  });
});
