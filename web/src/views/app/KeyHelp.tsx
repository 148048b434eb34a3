// The key-binding sheet: every binding of lib/keys.ts, opened with `?` or the top bar's
// button, closed with Esc, `?` or a click outside it. A single-key binding can be
// changed here: *Change*, then the new key (Esc cancels); kept in preferences.

import { useEffect, useState } from 'preact/hooks';
import { DEFAULT_KEYS, keyBindings, rebindingProblem, type KeyMap, type RebindableId } from '../../lib/keys';
import { loadPreferences, savePreferences } from '../../lib/preferences';

export function KeyHelp({ onClose }: { onClose: () => void }) {
  const [keys, setKeys] = useState<KeyMap>(() => loadPreferences().keys);
  const [changing, setChanging] = useState<RebindableId | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const keep = (next: KeyMap) => {
    setKeys(next);
    savePreferences({ keys: next });
  };

  useEffect(() => {
    if (!changing) return;
    // Captured before the shell and the views see it: the pressed key is the new binding.
    const onKey = (e: KeyboardEvent) => {
      if (['Shift', 'Control', 'Alt', 'Meta'].includes(e.key)) return;
      e.preventDefault();
      e.stopImmediatePropagation();
      if (e.key === 'Escape') {
        setChanging(null);
        setProblem(null);
        return;
      }
      const why = e.ctrlKey || e.metaKey || e.altKey ? 'press one key, without Ctrl, Alt or Meta' : rebindingProblem(changing, e.key, keys);
      if (why) {
        setProblem(why);
        return;
      }
      keep({ ...keys, [changing]: e.key });
      setChanging(null);
      setProblem(null);
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [changing, keys]);

  const changed = Object.keys(DEFAULT_KEYS).some((id) => keys[id as RebindableId] !== DEFAULT_KEYS[id as RebindableId]);
  return (
    <div class="overlay" onClick={onClose}>
      <section class="sheet" role="dialog" aria-label="Key bindings" data-testid="keys-help" onClick={(e) => e.stopPropagation()}>
        <header class="sheet-head">
          <h2>Key bindings</h2>
          <button class="icon" title="Close (Esc)" data-testid="keys-help-close" onClick={onClose}>
            ×
          </button>
        </header>
        <table class="keys">
          <tbody>
            {keyBindings(keys).map((b) => (
              <tr data-testid="key-binding" data-binding={b.id}>
                <td class="keys-keys">
                  {b.keys.map((k, i) => (
                    <>
                      {i > 0 && ' or '}
                      <kbd>{k}</kbd>
                    </>
                  ))}
                </td>
                <td class="muted small">{b.where}</td>
                <td>{b.what}</td>
                <td>
                  {b.id &&
                    (changing === b.id ? (
                      <span class="small" data-testid="key-waiting">
                        press a key… (Esc cancels)
                      </span>
                    ) : (
                      <button class="small" data-testid="key-change" onClick={() => (setChanging(b.id!), setProblem(null))}>
                        Change
                      </button>
                    ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {problem && (
          <p class="error small" data-testid="key-problem">
            {problem}
          </p>
        )}
        <p class="muted small">
          The board's filters, view, sort and density, the keys and the theme are kept in this browser.{' '}
          {changed && (
            <button class="small" data-testid="keys-reset" onClick={() => keep({ ...DEFAULT_KEYS })}>
              Restore the default keys
            </button>
          )}
        </p>
      </section>
    </div>
  );
}
