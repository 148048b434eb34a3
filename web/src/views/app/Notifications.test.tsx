// @vitest-environment happy-dom
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act } from 'preact/test-utils';

import { NO_FILTERS } from '../../lib/board';
import { loadNotifySettings, newRule, saveNotifySettings } from '../../lib/notifications';
import { savePreferences } from '../../lib/preferences';
import { click, mount, type Mounted } from '../../test/render';
import { Notifications } from './Notifications';

let mounted: Mounted | undefined;
let answer: NotificationPermission = 'granted';
const requestPermission = vi.fn(async () => {
  fakeNotification.permission = answer;
  return answer;
});
const fakeNotification = { permission: 'default' as NotificationPermission, requestPermission };

beforeEach(() => {
  localStorage.clear();
  answer = 'granted';
  fakeNotification.permission = 'default';
  requestPermission.mockClear();
  vi.stubGlobal('Notification', fakeNotification);
});
afterEach(() => {
  mounted?.unmount();
  vi.unstubAllGlobals();
});

/** Clicks and lets the permission's promise settle. */
async function clickAndSettle(el: Element) {
  await click(el);
  await act(async () => {
    await new Promise((r) => setTimeout(r, 0));
  });
}

describe('Notifications', () => {
  it('asks the permission only on the click, then is on with the board filter as its rule', async () => {
    savePreferences({ boardFilters: { ...NO_FILTERS, agent: 'coder' } });
    mounted = await mount(<Notifications onClose={() => {}} />);
    expect(requestPermission).not.toHaveBeenCalled();
    await clickAndSettle(mounted.byTestId('notify-enable'));
    expect(requestPermission).toHaveBeenCalledTimes(1);
    expect(mounted.byTestId('notify-state').textContent).toBe('on');
    expect(mounted.all('[data-testid="notify-rule"] .notify-rule-label').map((e) => e.textContent)).toEqual(['agent coder']);
    const stored = loadNotifySettings();
    expect(stored.enabled).toBe(true);
    expect(stored.rules.map((r) => r.filters.agent)).toEqual(['coder']);
  });

  it('stays off when the permission is refused, and says how to allow it once blocked', async () => {
    answer = 'denied';
    mounted = await mount(<Notifications onClose={() => {}} />);
    await clickAndSettle(mounted.byTestId('notify-enable'));
    expect(loadNotifySettings().enabled).toBe(false);
    expect(mounted.byTestId('notify-denied').textContent).toContain('site settings');
    expect(mounted.all('[data-testid="notify-enable"]')).toEqual([]);
  });

  it('edits and removes rules, and turns off', async () => {
    fakeNotification.permission = 'granted';
    saveNotifySettings({ enabled: true, rules: [newRule(NO_FILTERS), newRule({ ...NO_FILTERS, status: 'error' })] });
    mounted = await mount(<Notifications onClose={() => {}} />);
    const [, second] = mounted.all('[data-testid="notify-rule"]');
    expect(second.textContent).toContain('status error');
    const [ends] = Array.from(second.querySelectorAll('input[type=checkbox]'));
    await click(ends);
    expect(loadNotifySettings().rules[1]).toMatchObject({ ended: false, needsUser: true });
    await click(mounted.all('[data-testid="notify-remove"]')[0]);
    expect(loadNotifySettings().rules.map((r) => r.filters.status)).toEqual(['error']);
    await click(mounted.byTestId('notify-disable'));
    expect(loadNotifySettings().enabled).toBe(false);
    expect(mounted.byTestId('notify-enable')).toBeTruthy();
  });
});
