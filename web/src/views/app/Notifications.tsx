// The notifications sheet (the top bar's bell): turn browser notifications on (the
// permission is asked on that click only), and choose which runs they are about: each
// rule is the board's filter when it was added, telling when a run ends and/or when it
// needs the user. Settings live in localStorage (lib/notifications.ts).

import { useState } from 'preact/hooks';
import { loadPreferences } from '../../lib/preferences';
import { loadNotifySettings, newRule, ruleLabel, saveNotifySettings, type NotifyRule, type NotifySettings } from '../../lib/notifications';
import { notificationPermission, notifySettingsChanged } from '../../lib/notifier';

export function Notifications({ onClose }: { onClose: () => void }) {
  const [settings, setSettings] = useState<NotifySettings>(() => loadNotifySettings());
  const [permission, setPermission] = useState(notificationPermission());
  const [asking, setAsking] = useState(false);

  const save = (next: NotifySettings) => {
    setSettings(next);
    saveNotifySettings(next);
    notifySettingsChanged();
  };
  const boardRule = () => newRule(loadPreferences().boardFilters);
  const enable = async () => {
    setAsking(true);
    let answer = permission;
    try {
      answer = await Notification.requestPermission();
    } catch {
      /* an old browser's callback form: leave the state as it was */
    }
    setAsking(false);
    setPermission(answer);
    if (answer === 'granted') save({ enabled: true, rules: settings.rules.length ? settings.rules : [boardRule()] });
  };
  const setRule = (id: string, change: Partial<NotifyRule>) =>
    save({ ...settings, rules: settings.rules.map((r) => (r.id === id ? { ...r, ...change } : r)) });

  const on = settings.enabled && permission === 'granted';
  return (
    <div class="overlay" onClick={onClose}>
      <section class="sheet" role="dialog" aria-label="Notifications" data-testid="notify-sheet" onClick={(e) => e.stopPropagation()}>
        <header class="sheet-head">
          <h2>Notifications</h2>
          <button class="icon" title="Close (Esc)" data-testid="notify-close" onClick={onClose}>
            ×
          </button>
        </header>
        {permission === 'unsupported' && <p class="error">This browser cannot show notifications.</p>}
        {permission === 'denied' && (
          <p class="notice" data-testid="notify-denied">
            Notifications are blocked for this site: allow them in the browser's site settings, then come back.
          </p>
        )}
        <p class="muted small">
          While this dashboard is open (a tab, even in the background, or the installed app), it tells you when a run
          ends or needs you: an approval it waits for, or a blocked end. Nothing is sent by the server itself.
        </p>
        <div class="buttons">
          {!on && permission !== 'unsupported' && permission !== 'denied' && (
            <button class="primary" data-testid="notify-enable" disabled={asking} onClick={enable}>
              Turn on notifications
            </button>
          )}
          {on && (
            <button data-testid="notify-disable" onClick={() => save({ ...settings, enabled: false })}>
              Turn off
            </button>
          )}
          <button data-testid="notify-add-rule" onClick={() => save({ ...settings, rules: [...settings.rules, boardRule()] })}>
            Add the board's filter
          </button>
          {on && <span class="pill ok-text" data-testid="notify-state">on</span>}
        </div>
        <ul class="notify-rules">
          {settings.rules.map((r) => (
            <li class="notify-rule" data-testid="notify-rule" data-rule-id={r.id}>
              <span class="notify-rule-label">{ruleLabel(r)}</span>
              <label class="check">
                <input type="checkbox" checked={r.ended} onChange={(e) => setRule(r.id, { ended: e.currentTarget.checked })} /> ends
              </label>
              <label class="check">
                <input type="checkbox" checked={r.needsUser} onChange={(e) => setRule(r.id, { needsUser: e.currentTarget.checked })} /> needs me
              </label>
              <button class="icon" title="Remove this rule" data-testid="notify-remove" onClick={() => save({ ...settings, rules: settings.rules.filter((x) => x.id !== r.id) })}>
                ×
              </button>
            </li>
          ))}
          {settings.rules.length === 0 && <li class="muted small">No rule yet: filter the board, then add its filter here.</li>}
        </ul>
      </section>
    </div>
  );
}
