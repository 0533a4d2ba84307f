// The web graphical mode against the engine fake, for GUI tests of the renderer's screens that
// need no network: the engine host's web listener (engine/host/web-ui) serving the built renderer
// (dist/renderer, `npm run build`) on an address of its own, a signed-in FakeEngine behind it, and
// Debian's Chromium on this host's loopback signed in with a one-time link, the way a browser
// given `netcli gui --web`'s link is. No daemon, no namespace: nothing leaves the process but the
// browser's requests to that address.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { FakeEngine } from '../../engine/engine.fake.js';
import { createWebUi, type WebUi } from '../../engine/host/web-ui/web-ui-server.js';
import { AppPage } from './app-page.js';
import { CHROMIUM, CHROMIUM_ARGS } from './browser-kit.js';

/** The renderer `npm run build` made (the engine host serves it from there). */
export const BUILT_RENDERER = fileURLToPath(new URL('../../dist/renderer/', import.meta.url));

export class FakeEngineGui {
  private constructor(
    readonly engine: FakeEngine,
    private readonly web: WebUi,
    private readonly browser: Browser,
    private readonly context: BrowserContext,
    readonly app: AppPage,
  ) {}

  /** A signed-in fake engine served to Chromium, the app open on Home. */
  static async start(): Promise<FakeEngineGui> {
    if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}`);
    if (!existsSync(`${BUILT_RENDERER}index.html`))
      throw new Error(`no built renderer in ${BUILT_RENDERER}: run npm run build first`);
    const engine = new FakeEngine();
    await engine.init({ endpoint: 'https://ferry.example', protocol: 'wireguard' });
    await engine.createAccount({ device_name: 'laptop' });
    const web = createWebUi({ engine, rendererDir: BUILT_RENDERER });
    let browser: Browser | undefined;
    try {
      const { url } = await web.open();
      browser = await chromium.launch({
        executablePath: CHROMIUM,
        args: CHROMIUM_ARGS,
        timeout: 60_000,
      });
      // A laptop's window, at the scale most screens have (as browser-kit's).
      const context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
      context.setDefaultTimeout(20_000);
      const app = new AppPage(await context.newPage());
      // The one-time link signs this browser in and sends it to the app (its page key in the
      // address's fragment, taken out at once).
      await app.goto(url);
      await app.page.getByRole('tablist', { name: 'Screens' }).waitFor();
      return new FakeEngineGui(engine, web, browser, context, app);
    } catch (e) {
      await browser?.close();
      await web.close();
      throw e;
    }
  }

  async stop(): Promise<void> {
    await this.context.close().catch(() => undefined);
    await this.browser.close();
    await this.web.close();
  }
}
