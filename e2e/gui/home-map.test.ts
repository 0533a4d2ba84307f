// Home's map and places in the web graphical mode, driven by Playwright in Debian's Chromium
// against the engine fake behind the engine host's web listener: disconnected, the map marks
// only the person's side (the home country set to China); the places list finds a region by
// city or country; connected, the map marks the exit's country and draws the path, and its name
// says both; no server id outside Details. Screenshots of Home connected in English and Persian
// (right to left).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppPage } from './app-page.js';
import { keepScreenshot } from './browser-kit.js';
import { FakeEngineGui } from './fake-engine-gui.js';
import { HomePage } from './home-page.js';

describe('Home’s map and places in the web graphical mode against the engine fake', () => {
  let g: FakeEngineGui;
  let app: AppPage;
  let home: HomePage;

  /** Reloads the page (the engine's configuration is read afresh) and waits for Home. */
  const reload = async () => {
    await app.page.reload();
    await app.page.locator('svg.world-map').waitFor();
  };

  beforeAll(async () => {
    g = await FakeEngineGui.start();
    app = g.app;
    home = new HomePage(app.page);
    await g.engine.patchConfig({ home_country: 'CN' });
    await reload();
  }, 90_000);
  afterAll(async () => {
    await g?.stop();
  }, 30_000);

  it('disconnected: the map shows the person’s side only', async () => {
    await app.openHome();
    await expect.poll(() => app.state()).toBe('Disconnected');
    await expect.poll(() => home.mapLabel()).toBe('Map: you are in China; not connected');
    expect(await home.pins()).toEqual(['home']);
    expect(await home.routes()).toEqual([]);
    expect(await home.highlighted()).toEqual(['world-map__country world-map__country--home']);
  }, 30_000);

  it('the places list finds a region by city or country, and by id', async () => {
    await expect.poll(() => home.placeIds()).toEqual(['global', 'asia-east', 'europe-west']);
    const rows = await home.placeRows();
    expect(rows.some((r) => r.startsWith('Asia East, Hong Kong'))).toBe(true);
    expect(rows.some((r) => /load \d+%/.test(r))).toBe(true);
    await home.search('nether');
    await expect.poll(() => home.placeIds()).toEqual(['europe-west']);
    await home.search('HONG');
    await expect.poll(() => home.placeIds()).toEqual(['asia-east']);
    await home.search('europe-west');
    await expect.poll(() => home.placeIds()).toEqual(['europe-west']);
    await home.search('atlantis');
    await expect.poll(() => home.placeIds()).toEqual([]);
    await expect(app.page.getByText('No place matches “atlantis”.').count()).resolves.toBe(1);
    await home.search('');
    await expect.poll(() => home.placeIds()).toHaveLength(3);
  }, 30_000);

  it('connected: the map marks the exit and the path; the server only in Details', async () => {
    await home.choose('asia-east');
    await expect.poll(() => app.chosenRegion(), { timeout: 15_000 }).toBe('asia-east');
    await app.connect();
    await app.waitForState('Connected');
    await expect
      .poll(() => home.mapLabel())
      .toBe('Map: you are in China; exit in Asia East, Hong Kong');
    expect((await home.pins()).sort()).toEqual(['exit', 'home']);
    const routes = await home.routes();
    expect(routes).toHaveLength(1);
    expect(routes[0]).toMatch(/^M[\d.]+,[\d.]+/);
    // Hong Kong is too small for the map: no country of its own is highlighted, China is.
    expect(await home.highlighted()).toEqual(['world-map__country world-map__country--home']);
    const node = g.engine.status().node!;
    const text = await home.connectionText();
    expect(text).toContain('Asia East, Hong Kong');
    expect(text).not.toContain(node.id);
    await app.page.getByText('Details', { exact: true }).click();
    await expect.poll(() => home.connectionText()).toContain(node.id);
    await app.page.getByText('Details', { exact: true }).click();
    for (const ms of [38, 41, 52, 47, 44]) g.engine.measure(ms);
    await expect.poll(() => app.latencySamples()).toBeGreaterThan(2);
    await keepScreenshot(app.page, 'home-map-en');
    // The system's dark theme: the map and the places follow it.
    await app.page.emulateMedia({ colorScheme: 'dark' });
    await keepScreenshot(app.page, 'home-map-en-dark');
    await app.page.emulateMedia({ colorScheme: 'light' });
  }, 60_000);

  it('a notice whose fix is a setting offers a button to it, not a command', async () => {
    g.engine.notify({
      code: 'split-unavailable',
      message: 'Your home country is unknown, so all traffic goes through the tunnel.',
    });
    const notices = app.page.getByRole('region', { name: 'Notices' });
    const fix = notices.getByRole('button', { name: 'Choose your home country' });
    await fix.waitFor();
    expect(await notices.innerText()).not.toMatch(/netcli/);
    await fix.click();
    await app.page.getByRole('tabpanel', { name: 'Settings' }).waitFor();
    // The Settings screen's home-country picker takes the focus once it is there.
    const picker = app.page.locator('#setting-home-country');
    if ((await picker.count()) > 0)
      await expect
        .poll(() =>
          picker.evaluate((e) => {
            const own = e as unknown as { ownerDocument: { activeElement: unknown } };
            return own.ownerDocument.activeElement === e;
          }),
        )
        .toBe(true);
    await app.openHome();
  }, 30_000);

  it('in Persian: the map’s words and the page right to left', async () => {
    await g.engine.patchConfig({ language: 'fa' });
    await reload();
    await expect.poll(() => app.page.locator('html').getAttribute('dir')).toBe('rtl');
    await expect
      .poll(() => home.mapLabel())
      .toBe('نقشه: شما در چین هستید؛ خروجی در Asia East، هنگ‌کنگ');
    expect(await home.routes()).toHaveLength(1);
    for (const ms of [40, 43, 39]) g.engine.measure(ms);
    await keepScreenshot(app.page, 'home-map-fa');
    await g.engine.patchConfig({ language: 'zh-CN' });
    await reload();
    await expect.poll(() => home.mapLabel()).toMatch(/^地图：你在中国；出口在/);
    await keepScreenshot(app.page, 'home-map-zh-CN');
  }, 60_000);
});
