// "Add a phone or tablet" in the desktop app's renderer (web graphical mode), driven by
// Playwright in Debian's Chromium inside a laptop's namespace against the real engine (netcli
// daemon), control plane and relay: the QR code on screen, read back from a screenshot with
// zbarimg, is exactly the configuration shown, private key and the relay's resolver included; the
// key is the one whose public half the account's new device holds; the engine lists the phone;
// "Save as file" gives the same bytes under the CSP; the page fits a window at 200% zoom; after
// Done nothing of the configuration is left in the page; the keyboard alone adds a tablet; the
// plan's device limit is said in words; the Account screen shows each device's live state.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NetcliHost } from '../netns/netcli-host.js';
import { requireTools, sh } from '../netns/test-network.js';
import type { Testbed } from '../netns/testbed.js';
import type { AppPage } from './app-page.js';
import { GuiBed, keepScreenshot } from './browser-kit.js';

interface ListedDevice {
  id: string;
  name: string;
  kind: string;
  wireguard_public_key: string;
  current: boolean;
  status: string;
  latency: string | null;
  region: string | null;
}

describe('adding a phone from the desktop app against the real engine', () => {
  let g: GuiBed;
  let bed: Testbed;
  let laptop: NetcliHost;
  let app: AppPage;
  /** The configuration the page showed for the phone. */
  let shown: string;

  const devices = () => laptop.json('devices').devices as ListedDevice[];
  const hasFocus = (l: Locator) =>
    l.evaluate((e) => e === (globalThis as any).document.activeElement);

  beforeAll(async () => {
    requireTools(['zbarimg', 'wg']);
    g = await GuiBed.start([['tokyo', 'asia-east']]);
    ({ bed, laptop, app } = g);
  }, 180_000);
  afterAll(async () => {
    await g?.stop();
  }, 60_000);

  it('adds a phone from the Account screen: its QR code decodes to exactly the configuration shown', async () => {
    await app.addPhone({ kind: 'phone', name: 'Anna-phone' });
    shown = await app.shownConfig();
    expect(shown).toMatch(/^PrivateKey = [A-Za-z0-9+/]{43}=$/m);
    expect(shown).toMatch(/^DNS = 10\.64\.0\.1$/m);
    expect(shown).toMatch(/^AllowedIPs = 0\.0\.0\.0\/0, ::\/0$/m);

    const png = path.join(bed.net.dir, 'add-phone-qr.png');
    await app.qrImage().screenshot({ path: png });
    expect(sh('zbarimg', ['--raw', '-q', '-Sbinary', png])).toBe(shown);
    await keepScreenshot(app.page, 'add-phone');
  }, 90_000);

  it('the engine lists the phone, holding the public half of the key shown', async () => {
    const phone = devices().find((d) => d.name === 'Anna-phone');
    expect(phone).toMatchObject({ kind: 'phone', current: false });
    const privateKey = /^PrivateKey = (\S+)$/m.exec(shown)![1]!;
    expect(sh('wg', ['pubkey'], `${privateKey}\n`).trim()).toBe(phone!.wireguard_public_key);
    // The page's own list of devices was read again.
    await expect
      .poll(() => app.page.getByRole('list', { name: 'Devices' }).textContent())
      .toContain('Anna-phone');
  }, 30_000);

  it('"Save as file" downloads the same configuration as Anna-phone.conf', async () => {
    const [download] = await Promise.all([
      app.page.waitForEvent('download'),
      app.page.getByRole('link', { name: 'Save as file' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('Anna-phone.conf');
    expect(readFileSync(await download.path(), 'utf8')).toBe(shown);
  }, 30_000);

  it('fits a window at 200% zoom: nothing scrolls sideways, the QR code whole', async () => {
    const page = app.page;
    const viewport = page.viewportSize()!;
    // 200% zoom of the 1100 px window: half as many CSS pixels across.
    await page.setViewportSize({ width: viewport.width / 2, height: viewport.height });
    try {
      const overflow = await page.evaluate(() => {
        const root = (globalThis as any).document.documentElement;
        return root.scrollWidth - root.clientWidth;
      });
      expect(overflow).toBeLessThanOrEqual(0);
      const box = (await app.qrImage().boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(viewport.width / 2);
      await keepScreenshot(page, 'add-phone-narrow');
    } finally {
      await page.setViewportSize(viewport);
    }
  }, 30_000);

  it('after Done, nothing of the configuration is left in the page', async () => {
    await app.finishAddDevice();
    const content = await app.page.content();
    expect(content).not.toContain('PrivateKey');
    expect(content).not.toContain(/^PrivateKey = (\S+)$/m.exec(shown)![1]!);
    expect(await app.qrImage().count()).toBe(0);
    // Back where it began, the keyboard too.
    const again = app.page.getByRole('button', { name: 'Add a phone or tablet', exact: true });
    await expect.poll(() => hasFocus(again)).toBe(true);
  }, 30_000);

  it('by keyboard alone: a tablet that keeps its local network', async () => {
    const page = app.page;
    const key = (k: string) => page.keyboard.press(k);
    const form = page.getByRole('form', { name: 'Add a phone or tablet' });
    await page.getByRole('button', { name: 'Add a phone or tablet', exact: true }).focus();
    await key('Enter');
    await expect.poll(() => hasFocus(form.getByRole('radio', { name: 'Phone' }))).toBe(true);
    await key('ArrowDown');
    expect(await form.getByRole('radio', { name: 'Tablet' }).isChecked()).toBe(true);
    await key('Tab');
    expect(await hasFocus(form.getByLabel('Device name', { exact: true }))).toBe(true);
    await page.keyboard.type('Tab');
    await key('Tab');
    expect(await hasFocus(form.getByLabel('Region', { exact: true }))).toBe(true);
    await key('Tab');
    await key('Space');
    expect(await form.getByRole('checkbox', { name: 'Allow local network' }).isChecked()).toBe(
      true,
    );
    await key('Tab');
    await key('Enter');
    await app.qrImage().waitFor();
    // The focus moved from the Add button (gone) to what replaced it.
    await expect
      .poll(() => hasFocus(page.getByRole('heading', { name: 'Scan Tab with the WireGuard app' })))
      .toBe(true);

    const config = await app.shownConfig();
    // Its LAN stays outside the tunnel: not everything is routed into it.
    expect(config).not.toMatch(/^AllowedIPs = 0\.0\.0\.0\/0/m);
    expect(config).toMatch(/^DNS = 10\.64\.0\.1$/m);
    const done = page.getByRole('button', { name: 'Done', exact: true });
    for (let i = 0; i < 6 && !(await hasFocus(done)); i++) await key('Tab');
    await key('Enter');
    await app.qrImage().waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain('PrivateKey');
    expect(devices().find((d) => d.name === 'Tab')).toMatchObject({ kind: 'tablet' });
  }, 60_000);

  it('over the plan’s device limit: says so in words, and to revoke a device first', async () => {
    // The Basic plan's three devices are in use (the laptop, the phone, the tablet).
    await expect(app.addPhone({ kind: 'phone', name: 'Fourth' })).rejects.toThrow(
      /device limit is reached\. Revoke a device/,
    );
    await keepScreenshot(app.page, 'add-phone-device-limit');
    expect(devices().map((d) => d.name)).not.toContain('Fourth');
    await app.page.getByRole('button', { name: 'Cancel', exact: true }).click();
    expect(await app.errorText()).toBeNull();
  }, 60_000);

  it('shows each device’s state: the phone connecting until its app starts, this laptop connected with its latency', async () => {
    const shownFor = async (name: string) =>
      (await app.devicesShown()).find((row) => row.startsWith(`${name} (`)) ?? '';
    // The phone's session began with its configuration; its app never started here.
    expect(await shownFor('Anna-phone')).toMatch(/\| Connecting… · Asia East/);
    expect(await shownFor('laptop')).toMatch(/This device \| Disconnected \|/);
    // The laptop connects while the Account screen stays open: its row follows by itself.
    laptop.json('connect', '--region', 'asia-east');
    await expect
      .poll(() => shownFor('laptop'), { timeout: 30_000, interval: 1_000 })
      .toMatch(/This device \| Connected · \d+(\.\d+)? ms · Asia East/);
    // netcli says the same, by the same control plane.
    expect(devices().find((d) => d.name === 'laptop')).toMatchObject({
      current: true,
      status: 'connected',
      region: 'asia-east',
      latency: expect.stringMatching(/^\d+(\.\d+)?ms$/),
    });
    await keepScreenshot(app.page, 'account-devices');
    laptop.json('disconnect');
  }, 90_000);
});
