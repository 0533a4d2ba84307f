// The GUI tests' kit: Debian's Chromium driven by playwright-core, run inside a host's network
// namespace (where the engine host serves the web graphical mode on an address of its own, a
// random 127.x.y.z of the namespace's loopback), the screenshots each run keeps as test output
// (.test-output/screenshots), and GuiBed: a laptop with the engine, real relays and the app open
// in that browser, signed in the way a user's is: `netcli gui --web` has the browser opener open
// its sign-in page (a stand-in opener records what it was given while every process's command
// line is read).
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { NETCLI, NetcliHost } from '../netns/netcli-host.js';
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

/** The command lines of every process on this machine that can be read (all namespaces). */
export function commandLines(): string[] {
  const lines: string[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      lines.push(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' '));
    } catch {
      // Gone meanwhile.
    }
  }
  return lines;
}

/** What `netcli gui --web` did to open the browser. */
export interface SignInOpened {
  /** The one-time link it answered (printed, and in the page). */
  link: URL;
  /** What the browser opener was given. */
  argv: string[];
  /** The sign-in page the opener was to open (argv's file). */
  file: string;
  /** The command lines that showed the link's token while the opener ran. */
  leaks: string[];
}

/**
 * Runs `netcli gui --web` on `host` as a user with a display does: a browser opener (xdg-open)
 * stand-in on PATH records its arguments and keeps running while every process's command line
 * is read. The opener is let go before this returns.
 */
export async function openGuiWithOpener(bed: Testbed, host: NetcliHost): Promise<SignInOpened> {
  const dir = path.join(bed.net.dir, `opener-${host.host}-${Date.now()}`);
  const bin = path.join(dir, 'bin');
  const runtime = path.join(dir, 'runtime');
  mkdirSync(bin, { recursive: true });
  mkdirSync(runtime, { mode: 0o700 });
  const argvFile = path.join(dir, 'argv');
  const done = path.join(dir, 'done');
  writeFileSync(
    path.join(bin, 'xdg-open'),
    `#!/bin/sh\nprintf '%s\\n' "$@" > '${argvFile}.tmp'\nmv '${argvFile}.tmp' '${argvFile}'\n` +
      `i=0; while [ ! -e '${done}' ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done\n`,
  );
  chmodSync(path.join(bin, 'xdg-open'), 0o755);
  try {
    const r = spawnSync(
      'ip',
      [
        'netns',
        'exec',
        bed.net.host(host.host).ns,
        'env',
        'DISPLAY=:99',
        `PATH=${bin}:${process.env.PATH ?? ''}`,
        `XDG_RUNTIME_DIR=${runtime}`,
        process.execPath,
        NETCLI,
        'gui',
        '--web',
        '--json',
        '--socket',
        host.socket,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    if (r.status !== 0) throw new Error(`netcli gui exited ${r.status}: ${r.stderr}`);
    const answer = JSON.parse(r.stdout) as { url: string; opened: string };
    if (answer.opened !== 'browser') throw new Error(`netcli gui opened ${answer.opened}`);
    const link = new URL(answer.url);
    const token = link.pathname.split('/').pop()!;
    await bed.net.waitFor('the browser opener', 10_000, () => existsSync(argvFile) || undefined);
    const leaks = commandLines().filter((line) => line.includes(token));
    const argv = readFileSync(argvFile, 'utf8').trimEnd().split('\n');
    return { link, argv, file: argv[0]!.replace(/^file:\/\//, ''), leaks };
  } finally {
    writeFileSync(done, '');
  }
}

/** Opens a sign-in page in `app`'s tab and waits until the app shows (it posts itself). */
export async function signInFrom(app: AppPage, file: string): Promise<void> {
  await app.page.goto(pathToFileURL(file).href, { waitUntil: 'commit' });
  await app.page.getByRole('tablist', { name: 'Screens' }).waitFor();
}

/**
 * A signed-in laptop with its engine (netcli daemon) and real relays, and the app open in
 * Chromium in the laptop's namespace, from the sign-in page `netcli gui --web` had opened.
 */
export class GuiBed {
  private constructor(
    readonly bed: Testbed,
    readonly laptop: NetcliHost,
    readonly browser: NamespaceBrowser,
    readonly app: AppPage,
    /** How the app was opened (its link spent). */
    readonly opened: SignInOpened,
  ) {}

  /** The link the app was opened with (spent). */
  get link(): URL {
    return this.opened.link;
  }

  /** `relays`: [host, region] of each relay, in order. */
  static async start(relays: readonly (readonly [string, string])[]): Promise<GuiBed> {
    requireTools([CHROMIUM]);
    const bed = await Testbed.start({ controlPlaneOn: 'servers' });
    let laptop: NetcliHost | undefined;
    let browser: NamespaceBrowser | undefined;
    try {
      for (const [host, region] of relays) await bed.addRelay(host, region);
      laptop = await NetcliHost.start(bed, 'laptop');
      laptop.human('init', '--protocol', 'wireguard', ...bed.endpointArgs());
      laptop.human('account', 'create', '--device-name', 'laptop');
      const opened = await openGuiWithOpener(bed, laptop);
      browser = await NamespaceBrowser.launch(bed.net, 'laptop');
      const app = new AppPage(await browser.newPage());
      await signInFrom(app, opened.file);
      return new GuiBed(bed, laptop, browser, app, opened);
    } catch (e) {
      await browser?.close();
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
