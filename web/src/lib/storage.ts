// What the dashboard keeps in this browser's localStorage, read and written one way: a
// value that is missing, unreadable or not JSON reads as null, and a browser that keeps
// nothing (storage disabled by a privacy setting, or full) makes a write report false.

/** The part of Storage this needs, so tests can pass a map. */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

export function browserStorage(): KeyValueStore | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null; // storage disabled: nothing is remembered
  }
}

/** The parsed value under `key`, or null. */
export function readStoredJson(storage: KeyValueStore | null, key: string): unknown {
  try {
    const text = storage?.getItem(key);
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** Stores `value` as JSON under `key`; false when the browser keeps nothing. */
export function writeStoredJson(storage: KeyValueStore | null, key: string, value: unknown): boolean {
  if (!storage) return false;
  try {
    storage.setItem(key, JSON.stringify(value));
    return true;
  } catch {
    return false;
  }
}
