import { describe, expect, it } from 'vitest';
import { NO_FILTERS } from './board';
import { DEFAULT_PREFERENCES, loadPreferences, PREFERENCES_KEY, savePreferences, type KeyValueStore } from './preferences';

function memory(initial: Record<string, string> = {}): KeyValueStore & { data: Record<string, string> } {
  const data = { ...initial };
  return { data, getItem: (k) => (k in data ? data[k] : null), setItem: (k, v) => void (data[k] = v) };
}

describe('preferences', () => {
  it('are the defaults when nothing is stored, or when there is no storage', () => {
    expect(loadPreferences(memory())).toEqual(DEFAULT_PREFERENCES);
    expect(loadPreferences(null)).toEqual(DEFAULT_PREFERENCES);
    expect(savePreferences({ boardFilters: NO_FILTERS }, null)).toBe(false);
  });

  it('keep the board filters across a save and a load', () => {
    const s = memory();
    const filters = { ...NO_FILTERS, text: 'dark mode', status: 'running', archived: true };
    expect(savePreferences({ boardFilters: filters }, s)).toBe(true);
    expect(loadPreferences(s).boardFilters).toEqual(filters);
  });

  it('fall back field by field when what is stored is wrong', () => {
    const s = memory({ [PREFERENCES_KEY]: JSON.stringify({ boardFilters: { text: 7, status: 'failed', archived: 'yes', extra: 1 } }) });
    expect(loadPreferences(s).boardFilters).toEqual({ ...NO_FILTERS, status: 'failed' });
    expect(loadPreferences(memory({ [PREFERENCES_KEY]: '{not json' }))).toEqual(DEFAULT_PREFERENCES);
    expect(loadPreferences(memory({ [PREFERENCES_KEY]: '[1,2]' }))).toEqual(DEFAULT_PREFERENCES);
  });

  it('survive a storage that throws (full, or disabled)', () => {
    const broken: KeyValueStore = {
      getItem: () => {
        throw new Error('denied');
      },
      setItem: () => {
        throw new Error('quota');
      },
    };
    expect(loadPreferences(broken)).toEqual(DEFAULT_PREFERENCES);
    expect(savePreferences({ boardFilters: NO_FILTERS }, broken)).toBe(false);
  });

  it('keep the diff layout beside the filters, unified unless split was stored', () => {
    const s = memory();
    expect(loadPreferences(s).diffLayout).toBe('unified');
    expect(savePreferences({ diffLayout: 'split' }, s)).toBe(true);
    expect(savePreferences({ boardFilters: { ...NO_FILTERS, text: 'x' } }, s)).toBe(true);
    expect(loadPreferences(s)).toEqual({ ...DEFAULT_PREFERENCES, boardFilters: { ...NO_FILTERS, text: 'x' }, diffLayout: 'split' });
    expect(loadPreferences(memory({ [PREFERENCES_KEY]: JSON.stringify({ diffLayout: 'sideways' }) })).diffLayout).toBe('unified');
  });

  it("keep the board's view and sort, and the new filters, beside older fields", () => {
    const s = memory({ [PREFERENCES_KEY]: JSON.stringify({ boardFilters: { text: 'x' } }) });
    expect(loadPreferences(s)).toEqual({ ...DEFAULT_PREFERENCES, boardFilters: { ...NO_FILTERS, text: 'x' } });
    savePreferences({ boardView: 'columns', boardSort: 'name', density: 'compact' }, s);
    savePreferences({ boardFilters: { ...NO_FILTERS, repo: '/src/app', backend: 'codex', pinned: true, notes: true } }, s);
    const p = loadPreferences(s);
    expect(p.boardView).toBe('columns');
    expect(p.boardSort).toBe('name');
    expect(p.density).toBe('compact');
    expect(p.boardFilters).toEqual({ ...NO_FILTERS, repo: '/src/app', backend: 'codex', pinned: true, notes: true });
  });

  it('fall back to the list view and the created sort when what is stored is unknown', () => {
    const s = memory({ [PREFERENCES_KEY]: JSON.stringify({ boardView: 'kanban', boardSort: 42, density: 'tiny', boardFilters: { pinned: 'yes' } }) });
    expect(loadPreferences(s)).toEqual(DEFAULT_PREFERENCES);
  });
});
