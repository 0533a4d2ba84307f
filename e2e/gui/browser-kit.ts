// The GUI tests' kit: Debian's Chromium driven by playwright-core, run inside a host's network
// namespace (where the engine host serves the web graphical mode on the namespace's 127.0.0.1),
// the screenshots each run keeps as test output (.test-output/screenshots), and GuiBed: a laptop
// with the engine, real relays and the app open in that browser.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { NetcliHost } from '../netns/netcli-host.js';
import { requireTools, type TestNetwork } from '../netns/test-network.js';
import { Testbed } from '../netns/testbed.js';
import { AppPage } from './app-page.js';

export const CHROMIUM = '/usr/bin/chromium';
/** Flags for a headless Chromium that talks to nothing but the pages it is sent to. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Where a run's screenshots go (kept by CI as test output, never committed). */
export const SCREENSHOT_DIR = fileURLToPath(
  new URL('../../.test-output/screenshots/', import.meta.url),
);

export class NamespaceBrowser {
  private constructor(
    readonly browser: Browser,
    readonly context: BrowserContext,
  ) {}

  /**
   * Chromium in `host`'s namespace: Playwright starts it through a wrapper that enters the
   * namespace (`ip netns exec` keeps the pipes Playwright talks over). Closed by close().
   */
  static async launch(net: TestNetwork, host: string): Promise<NamespaceBrowser> {
    const dir = path.join(net.dir, `chromium-${host}`);
    mkdirSync(dir, { recursive: true });
    const wrapper = path.join(dir, 'chromium');
    writeFileSync(wrapper, `#!/bin/sh\nexec ip netns exec ${net.host(host).ns} ${CHROMIUM} "$@"\n`);
    chmodSync(wrapper, 0o755);
    const browser = await chromium.launch({
      executablePath: wrapper,
      args: CHROMIUM_ARGS,
      env: { ...process.env, HOME: dir },
      timeout: 60_000,
    });
    try {
      // A laptop's window, at the scale most screens have.
      const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
      context.setDefaultTimeout(20_000);
      return new NamespaceBrowser(browser, context);
    } catch (e) {
      await browser.close();
      throw e;
    }
  }

  newPage(): Promise<Page> {
    return this.context.newPage();
  }

  async close(): Promise<void> {
    await this.context.close().catch(() => undefined);
    await this.browser.close();
  }
}

/** Saves a full-page screenshot as SCREENSHOT_DIR/<name>.png; its path. */
export async function keepScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

/**
 * A signed-in laptop with its engine (netcli daemon) and real relays, and the app open in
 * Chromium in the laptop's namespace from the one-time link `netcli gui --web` gave.
 */
export class GuiBed {
  private constructor(
    readonly bed: Testbed,
    readonly laptop: NetcliHost,
    readonly browser: NamespaceBrowser,
    readonly app: AppPage,
    /** The link the app was opened with (spent). */
    readonly link: URL,
  ) {}

  /** `relays`: [host, region] of each relay, in order. */
  static async start(relays: readonly (readonly [string, string])[]): Promise<GuiBed> {
    requireTools([CHROMIUM]);
    const bed = await Testbed.start({ controlPlaneOn: 'servers' });
    let laptop: NetcliHost | undefined;
    try {
      for (const [host, region] of relays) await bed.addRelay(host, region);
      laptop = await NetcliHost.start(bed, 'laptop');
      laptop.human('init', '--protocol', 'wireguard', '--endpoint', bed.controlUrl);
      laptop.human('account', 'create', '--device-name', 'laptop');
      const link = new URL(laptop.json('gui', '--web', '--no-open').url);
      const browser = await NamespaceBrowser.launch(bed.net, 'laptop');
      const app = new AppPage(await browser.newPage());
      await app.goto(link.href);
      return new GuiBed(bed, laptop, browser, app, link);
    } catch (e) {
      await laptop?.stop();
      await bed.stop();
      throw e;
    }
  }

  async stop(): Promise<void> {
    await this.browser.close();
    this.laptop.run('disconnect');
    await this.laptop.stop();
    await this.bed.stop();
  }
}
