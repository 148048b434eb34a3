// The key-binding sheet: every binding of lib/keys.ts, opened with `?` or the top bar's
// button, closed with Esc, `?` or a click outside it.

import { KEY_BINDINGS } from '../../lib/keys';

export function KeyHelp({ onClose }: { onClose: () => void }) {
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
            {KEY_BINDINGS.map((b) => (
              <tr data-testid="key-binding">
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
              </tr>
            ))}
          </tbody>
        </table>
        <p class="muted small">The board's filters, view and sort and the theme are kept in this browser.</p>
      </section>
    </div>
  );
}
