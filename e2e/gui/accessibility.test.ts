// axe-core (WCAG 2 A/AA) on every screen and state of the web graphical mode, driven by
// Playwright in Debian's Chromium against the engine fake behind the engine host's web listener:
// Home disconnected, connected and in error, Settings, Account, Diagnostics (before and after a
// run), the first run, each in the light and the dark theme (the system's prefers-color-scheme),
// Home and Settings in Persian (right to left) too. No serious or critical finding; each one is
// printed with its rule and where. Then 200% zoom (a 1280px window's half): no screen scrolls
// sideways and the main controls stay in view. Screenshots of Home light, dark and Persian kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FerryError } from '../../engine/errors.js';
import {
  seriousViolations,
  showScreen,
  useLanguage,
  useScheme,
  waitUntil,
  type InPage,
  type Screen,
} from './a11y-kit.js';
import { keepScreenshot } from './browser-kit.js';
import { FakeEngineGui } from './fake-engine-gui.js';

const SCHEMES = ['light', 'dark'] as const;

describe('axe-core on every screen and state, light and dark', () => {
  let g: FakeEngineGui;

  beforeAll(async () => {
    g = await FakeEngineGui.start();
  }, 90_000);
  afterAll(async () => {
    await g?.stop();
  }, 30_000);

  const page = () => g.app.page;

  /** Home's connection card says the engine's state (its class, in any language). */
  const waitForState = (state: string) =>
    page().locator(`.connection--${state}`).waitFor({ timeout: 15_000 });

  /** The serious and critical findings on `screen` as it is now, in both themes. */
  const scan = async (screen: Screen, what: string): Promise<string[]> => {
    await showScreen(page(), screen);
    const found: string[] = [];
    for (const scheme of SCHEMES) {
      await useScheme(page(), scheme);
      found.push(...(await seriousViolations(page(), `${what} (${scheme})`)));
    }
    await useScheme(page(), 'light');
    return found;
  };

  const expectNone = (found: string[]) => expect(found, found.join('\n')).toEqual([]);

  it('Home, disconnected', async () => {
    await waitForState('disconnected');
    expectNone(await scan('home', 'home, disconnected'));
    await useScheme(page(), 'light');
    await keepScreenshot(page(), 'a11y-home-light');
    await useScheme(page(), 'dark');
    await keepScreenshot(page(), 'a11y-home-dark');
    await useScheme(page(), 'light');
  }, 60_000);

  it('Home, connected (with a latency measured)', async () => {
    await g.engine.connect({});
    await waitForState('connected');
    g.engine.measure(23);
    g.engine.measure(31);
    await waitUntil(
      page(),
      async () => (await page().locator('.latency-chart').count()) > 0,
      'the latency chart',
    ).catch(() => undefined);
    expectNone(await scan('home', 'home, connected'));
    await useScheme(page(), 'dark');
    await keepScreenshot(page(), 'a11y-home-connected-dark');
    await useScheme(page(), 'light');
  }, 60_000);

  it('Settings, Account and Diagnostics while connected', async () => {
    const found = [
      ...(await scan('settings', 'settings')),
      ...(await scan('account', 'account')),
      ...(await scan('diagnostics', 'diagnostics, not run')),
    ];
    expectNone(found);
  }, 90_000);

  /** Runs the diagnostics from their screen's button (in any language) until the report shows. */
  const runDiagnostics = async () => {
    await showScreen(page(), 'diagnostics');
    await page().locator('#panel-diagnostics button').first().press('Enter');
    await page().locator('#panel-diagnostics table').waitFor({ timeout: 30_000 });
    await waitUntil(
      page(),
      async () => (await page().locator('#panel-diagnostics [aria-disabled="true"]').count()) === 0,
      'the diagnostics to finish',
      30_000,
    );
  };

  it('Diagnostics with a report', async () => {
    await runDiagnostics();
    expectNone(await scan('diagnostics', 'diagnostics, reported'));
  }, 90_000);

  it('Home in error (a connect that failed)', async () => {
    await showScreen(page(), 'home');
    await g.engine.disconnect();
    await waitForState('disconnected');
    g.engine.failNextConnect = new FerryError('node-unreachable', 'the node did not answer');
    await g.engine.connect({}).catch(() => undefined);
    await waitForState('error');
    expectNone(await scan('home', 'home, error'));
    expectNone(await scan('settings', 'settings, error'));
    await showScreen(page(), 'home');
    await g.engine.disconnect();
    await waitForState('disconnected');
  }, 60_000);

  it('Home and Settings in Persian (right to left)', async () => {
    await useLanguage(g, 'fa');
    expect(await page().getAttribute('html', 'dir')).toBe('rtl');
    await showScreen(page(), 'home');
    await waitForState('disconnected');
    const found = [...(await scan('home', 'fa home')), ...(await scan('settings', 'fa settings'))];
    await showScreen(page(), 'home');
    await keepScreenshot(page(), 'a11y-home-fa');
    await useScheme(page(), 'dark');
    await keepScreenshot(page(), 'a11y-home-fa-dark');
    await useScheme(page(), 'light');
    await g.engine.connect({});
    await waitForState('connected');
    await keepScreenshot(page(), 'a11y-home-fa-connected');
    found.push(...(await scan('home', 'fa home, connected')));
    found.push(...(await scan('account', 'fa account')));
    await runDiagnostics();
    found.push(...(await scan('diagnostics', 'fa diagnostics, reported')));
    for (const screen of ['settings', 'account', 'diagnostics'] as const) {
      await showScreen(page(), screen);
      await keepScreenshot(page(), `a11y-${screen}-fa`);
    }
    // The report at 200% zoom: each check a block, in Persian.
    await page().setViewportSize({ width: 640, height: 380 });
    await keepScreenshot(page(), 'a11y-diagnostics-fa-200');
    await page().setViewportSize({ width: 1100, height: 760 });
    await showScreen(page(), 'home');
    await g.engine.disconnect();
    await waitForState('disconnected');
    await useLanguage(g, 'auto');
    expectNone(found);
  }, 120_000);

  it('200% zoom: no screen scrolls sideways, the main controls stay in view', async () => {
    // A 1280×760 window at 200%: 640×380 CSS pixels.
    await page().setViewportSize({ width: 640, height: 380 });
    const problems: string[] = [];
    try {
      for (const screen of ['home', 'settings', 'account', 'diagnostics'] as const) {
        await showScreen(page(), screen);
        const widths = await page().evaluate(() => {
          const root = (globalThis as unknown as InPage).document.documentElement;
          return { scroll: root.scrollWidth, client: root.clientWidth };
        });
        if (widths.scroll > widths.client + 1)
          problems.push(`${screen}: the page is ${widths.scroll}px wide in ${widths.client}px`);
        // Every control can be brought into view and lies within the window's width.
        const controls = page().locator(
          `[role="tab"], #panel-${screen} button, #panel-${screen} input, #panel-${screen} select, #panel-${screen} a[href]`,
        );
        for (let i = 0; i < (await controls.count()); i++) {
          const control = controls.nth(i);
          if (!(await control.isVisible())) continue;
          await control.scrollIntoViewIfNeeded();
          const box = await control.boundingBox();
          const name = (await control.getAttribute('aria-label')) ?? (await control.innerText());
          if (!box || box.x < -1 || box.x + box.width > widths.client + 1)
            problems.push(
              `${screen}: "${name.trim()}" is outside the window (${JSON.stringify(box)})`,
            );
        }
        problems.push(...(await seriousViolations(page(), `${screen} at 200%`)));
      }
      await showScreen(page(), 'home');
      await page().evaluate(() => (globalThis as unknown as InPage).scrollTo(0, 0));
      await keepScreenshot(page(), 'a11y-home-200');
    } finally {
      await page().setViewportSize({ width: 1100, height: 760 });
    }
    expect(problems, problems.join('\n')).toEqual([]);
  }, 120_000);

  it('the first run (signed out)', async () => {
    await g.engine.logout();
    await page().reload();
    await page().locator('.first-run').waitFor({ timeout: 15_000 });
    const found: string[] = [];
    for (const scheme of SCHEMES) {
      await useScheme(page(), scheme);
      found.push(...(await seriousViolations(page(), `first run (${scheme})`)));
    }
    await useScheme(page(), 'light');
    await keepScreenshot(page(), 'a11y-first-run');
    expectNone(found);
  }, 60_000);
});
