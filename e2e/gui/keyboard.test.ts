// The web graphical mode from the keyboard alone (Tab, Shift+Tab, Enter, Space and the arrow
// keys; no click), in Debian's Chromium against the engine fake behind the engine host's web
// listener: Tab reaches the screens' tabs first, then Home's region and the Connect button, and
// Enter connects; the arrow keys move to Settings, where Space turns the kill switch over; back
// on Home, Enter disconnects. In Persian the tabs are mirrored and so are their arrow keys
// (ArrowLeft to the next screen). At every step the focus is on something a screen reader names,
// and it is drawn (an outline or a ring, the :focus-visible style).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  focused,
  hasFocus,
  showScreen,
  tabTo,
  useLanguage,
  waitUntil,
  type Focused,
} from './a11y-kit.js';
import { keepScreenshot } from './browser-kit.js';
import { FakeEngineGui } from './fake-engine-gui.js';

describe('the app from the keyboard alone', () => {
  let g: FakeEngineGui;
  /** Every element the focus was on, in order. */
  const visited: Focused[] = [];

  beforeAll(async () => {
    g = await FakeEngineGui.start();
  }, 90_000);
  afterAll(async () => {
    await g?.stop();
  }, 30_000);

  const page = () => g.app.page;
  const state = async () => (await g.engine.status()).status;
  const go = async (wanted: RegExp, key: 'Tab' | 'Shift+Tab' = 'Tab') => {
    const path = await tabTo(page(), wanted, { key });
    visited.push(...path);
    return path;
  };
  const now = async () => {
    const f = await focused(page());
    if (f) visited.push(f);
    return f;
  };

  it('Tab reaches the tabs first, then the region, then Connect; Enter connects', async () => {
    await page().locator('.connection--disconnected').waitFor();
    const path = await go(/^button "Connect"$/);
    const spoken = path.map((f) => f.spoken);
    // The selected screen's tab first (one stop for the tab list), then Home's controls.
    expect(spoken[0]).toBe('tab "Home"');
    expect(spoken.filter((s) => s.startsWith('tab '))).toEqual(['tab "Home"']);
    // Where to go comes before going.
    const region = spoken.findIndex((s) => /"Region"/.test(s));
    expect(region, spoken.join(' → ')).toBeGreaterThan(0);
    await page().keyboard.press('Enter');
    await waitUntil(page(), async () => (await state()) === 'connected', 'the engine to connect');
    await page().locator('.connection--connected').waitFor();
    // The focus stays on the big button, which now disconnects.
    expect((await now())?.spoken).toBe('button "Disconnect"');
    await keepScreenshot(page(), 'keyboard-connected');
  }, 60_000);

  it('the arrow keys move to Settings, where Space turns the kill switch over', async () => {
    await go(/^tab "Home"$/, 'Shift+Tab');
    await page().keyboard.press('ArrowRight');
    expect((await now())?.spoken).toBe('tab "Settings"');
    await page().locator('#panel-settings[role="tabpanel"]').waitFor();
    const before = (await g.engine.getConfig()).kill_switch;
    await go(/^checkbox "Kill switch"/);
    await page().keyboard.press('Space');
    await waitUntil(
      page(),
      async () => (await g.engine.getConfig()).kill_switch === !before,
      'the engine to take the kill switch',
    );
    const box = page().getByRole('checkbox', { name: 'Kill switch', exact: true });
    await expect.poll(() => box.isChecked()).toBe(!before);
    // The change did not move the focus.
    expect((await now())?.spoken).toMatch(/^checkbox "Kill switch"/);
    await keepScreenshot(page(), 'keyboard-settings');
  }, 60_000);

  it('back on Home, Enter on Disconnect disconnects', async () => {
    await go(/^tab "Settings"$/, 'Shift+Tab');
    await page().keyboard.press('ArrowLeft');
    expect((await now())?.spoken).toBe('tab "Home"');
    await page().locator('#panel-home[role="tabpanel"]').waitFor();
    await go(/^button "Disconnect"$/);
    await page().keyboard.press('Enter');
    await waitUntil(page(), async () => (await state()) === 'disconnected', 'the disconnect');
    await page().locator('.connection--disconnected').waitFor();
    expect((await now())?.spoken).toBe('button "Connect"');
  }, 60_000);

  it('in Persian (right to left) the arrow keys follow the mirrored tabs', async () => {
    await useLanguage(g, 'fa');
    try {
      await showScreen(page(), 'home');
      const tab = (s: string) => page().locator(`#tab-${s}`);
      await tab('home').focus();
      // The next screen's tab is to the left: ArrowLeft goes there, ArrowRight back.
      const home = (await tab('home').boundingBox())!;
      const settings = (await tab('settings').boundingBox())!;
      expect(settings.x).toBeLessThan(home.x);
      await page().keyboard.press('ArrowLeft');
      await expect.poll(() => hasFocus(tab('settings'))).toBe(true);
      await page().locator('#panel-settings[role="tabpanel"]').waitFor();
      await page().keyboard.press('ArrowRight');
      await expect.poll(() => hasFocus(tab('home'))).toBe(true);
      visited.push((await focused(page()))!);
    } finally {
      await useLanguage(g, 'auto');
    }
  }, 60_000);

  it('every stop was named and its focus drawn', () => {
    expect(visited.length).toBeGreaterThan(5);
    const unnamed = visited.filter((f) => !/"[^"]+"/.test(f.spoken));
    expect(unnamed, JSON.stringify(unnamed)).toEqual([]);
    const undrawn = visited.filter((f) => !f.drawn || !f.focusVisible || !f.shown);
    expect(undrawn, JSON.stringify(undrawn)).toEqual([]);
  });
});
