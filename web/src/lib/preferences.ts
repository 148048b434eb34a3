// What the dashboard remembers between visits, in this browser's localStorage: the
// board's filters, its view (list or columns), sort and density, the diff tab's layout and the key bindings (the
// theme has its own key, lib/theme.ts). A stored value is checked field by field, so one
// written by an older or newer dashboard, or by hand, can only fall back to the defaults,
// never break the board.

import { filtersFrom, NO_FILTERS, SORTS, type BoardFilters, type BoardSort } from './board';
import { browserStorage, readStoredJson, writeStoredJson, type KeyValueStore } from './storage';
import { DEFAULT_KEYS, keyMapFrom, type KeyMap } from './keys';

export const PREFERENCES_KEY = 'agentry.preferences.v1';

/** How the diff tab lays out a patch: one column, or old and new side by side. */
export type DiffLayout = 'unified' | 'split';

export const BOARD_VIEWS = ['list', 'columns'] as const;
export type BoardView = (typeof BOARD_VIEWS)[number];

/** How much the board's list shows per run: two lines (comfortable) or one (compact). */
export const DENSITIES = ['comfortable', 'compact'] as const;
export type Density = (typeof DENSITIES)[number];

export interface Preferences {
  boardFilters: BoardFilters;
  boardView: BoardView;
  boardSort: BoardSort;
  density: Density;
  diffLayout: DiffLayout;
  /** The single-key bindings (lib/keys.ts), the user's changes over the defaults. */
  keys: KeyMap;
}

export const DEFAULT_PREFERENCES: Preferences = { boardFilters: NO_FILTERS, boardView: 'list', boardSort: 'created', density: 'comfortable', diffLayout: 'unified', keys: DEFAULT_KEYS };

export type { KeyValueStore };

const oneOf = <T extends string>(allowed: readonly T[], value: unknown, fallback: T): T =>
  (allowed as readonly unknown[]).includes(value) ? (value as T) : fallback;

/** The stored preferences, each field checked; the defaults where one is missing or wrong. */
export function loadPreferences(storage: KeyValueStore | null = browserStorage()): Preferences {
  const parsed = readStoredJson(storage, PREFERENCES_KEY);
  const p = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>;
  return {
    boardFilters: filtersFrom(p.boardFilters),
    boardView: oneOf(BOARD_VIEWS, p.boardView, DEFAULT_PREFERENCES.boardView),
    boardSort: oneOf(SORTS, p.boardSort, DEFAULT_PREFERENCES.boardSort),
    density: oneOf(DENSITIES, p.density, DEFAULT_PREFERENCES.density),
    diffLayout: p.diffLayout === 'split' ? 'split' : 'unified',
    keys: keyMapFrom(p.keys),
  };
}

/** Stores `change` over what is stored; false when the browser keeps nothing. */
export function savePreferences(change: Partial<Preferences>, storage: KeyValueStore | null = browserStorage()): boolean {
  return writeStoredJson(storage, PREFERENCES_KEY, { ...loadPreferences(storage), ...change });
}
