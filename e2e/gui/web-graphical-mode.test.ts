// The desktop app's renderer in the web graphical mode, driven by Playwright in Debian's Chromium
// inside a laptop's namespace against the real engine (netcli daemon) and real relays: one click
// connects (the echo service sees the relay), the latency readout moves, a region switch
// reconnects, the kill switch and DNS settings reach the engine's config, its nftables table and
// the namespace's resolv.conf, disconnect, and a control plane out of reach said in plain words.
// The web mode's guard with the real daemon: signed in from the page `netcli gui` had the
// browser open (its link on no process's command line), on an address of its own; no session,
// the cookie without the page key, a foreign Host or Origin are refused, and the page reaches
// nothing but its own API. Settings lists the browsers signed in, ends one, signs this one out.
// Screenshots of each main screen are kept.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NetcliHost } from '../netns/netcli-host.js';
import type { Testbed } from '../netns/testbed.js';
import type { AppPage } from './app-page.js';
import { GuiBed, keepScreenshot } from './browser-kit.js';
import { BrowserSessionsCard } from './browser-sessions-card.js';

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the web graphical mode against the real engine', () => {
  let g: GuiBed;
  let bed: Testbed;
  let laptop: NetcliHost;
  let app: AppPage;
  let tokyo: string;
  let zurich: string;
  let link: URL;

  const status = () => laptop.json('status');
  const nftRuleset = () => bed.net.exec('laptop', ['nft', 'list', 'ruleset']);
  const resolvConf = () => bed.net.exec('laptop', ['cat', '/etc/resolv.conf']);

  beforeAll(async () => {
    g = await GuiBed.start([
      ['tokyo', 'asia-east'],
      ['zurich', 'global'],
    ]);
    ({ bed, laptop, app, link } = g);
    tokyo = bed.relays.get('tokyo')!.address;
    zurich = bed.relays.get('zurich')!.address;
  }, 180_000);
  afterAll(async () => {
    await g?.stop();
  }, 60_000);

  /** curl in the laptop's namespace: the HTTP status only. */
  const curl = (...args: string[]) =>
    bed.net.exec('laptop', ['curl', '-s', '-o', '/dev/null', '-w', '%{http_code}', ...args]).trim();

  /** A session of curl's own, from a one-time link netcli printed: its cookie and page key. */
  const curlSignIn = (): { cookie: string; key: string } => {
    const fresh = new URL(laptop.json('gui', '--web', '--no-open').url);
    const headers = bed.net.exec('laptop', [
      'curl',
      '-s',
      '-o',
      '/dev/null',
      '-D',
      '-',
      fresh.href,
    ]);
    const cookie = headers.match(/set-cookie: ([^;]+)/i)?.[1];
    const key = headers.match(/location: \/#page=([A-Za-z0-9_-]+)/i)?.[1];
    if (!cookie || !key) throw new Error(`no session in:\n${headers}`);
    return { cookie, key };
  };

  it('opens signed in from the page netcli gui opened: the link on no command line, an address of its own', async () => {
    // The browser opener got a file, and no process showed the token while it ran.
    expect(g.opened.leaks).toEqual([]);
    expect(g.opened.argv).toEqual([g.opened.file]);
    expect(g.opened.file).toMatch(/\/runtime\/ferry\/sign-in-[A-Za-z0-9_-]+\.html$/);
    expect(link.hostname).toMatch(/^127\.\d+\.\d+\.\d+$/);
    expect(link.hostname).not.toBe('127.0.0.1');
    expect(new URL(app.page.url()).host).toBe(link.host);
    // The page key is out of the address bar at once.
    expect(app.page.url()).toBe(`http://${link.host}/`);
    await expect.poll(() => app.state(), { timeout: 15_000 }).toMatch(/^Disconnected/);
    await keepScreenshot(app.page, 'disconnected');
  }, 60_000);

  /** A region's option in the picker, e.g. "Global (2.3 ms, load 0%)". */
  const optionLabel = async (value: string) =>
    (await app.regionOptions()).find((o) => o.value === value)?.label ?? '';
  const measured = /\(\d+(\.\d+)? ms, load /;

  it('one click connects: the echo service sees the relay, the latency readout moves', async () => {
    // Every region measured before connecting (once connected no probe leaves beside the tunnel).
    await app.measureLatencies();
    await expect.poll(() => optionLabel('global'), { timeout: 15_000 }).toMatch(measured);
    await app.chooseRegion('asia-east');
    await app.connect();
    // The engine says connecting first (the exit address before, the node, the handshake):
    // the page shows it while the tunnel comes up.
    await expect.poll(() => app.state(), { timeout: 10_000, interval: 20 }).toMatch(/^Connecting/);
    await keepScreenshot(app.page, 'connecting');
    await expect.poll(() => app.state(), { timeout: 30_000 }).toMatch(/^Connected/);
    expect(status()).toMatchObject({ status: 'connected', region: 'asia-east' });
    expect(bed.echoFrom('laptop')).toBe(tokyo);
    await expect.poll(() => app.latencyMs(), { timeout: 15_000 }).not.toBeNull();
    const samples = await app.latencySamples();
    await expect.poll(() => app.latencySamples(), { timeout: 20_000 }).toBeGreaterThan(samples);
    // The picker shows the latency of the region connected to (the tunnel's); a latency check
    // while connected measures the server in use only, and the page says why.
    await expect.poll(() => optionLabel('asia-east'), { timeout: 15_000 }).toMatch(measured);
    await app.measureLatencies();
    await expect
      .poll(() => app.page.locator('.region__progress').textContent(), { timeout: 15_000 })
      .toMatch(/^Only the node in use is measured while connected/);
    await keepScreenshot(app.page, 'connected');
  }, 90_000);

  it('switching region reconnects there', async () => {
    await app.chooseRegion('global');
    await expect.poll(() => status().region, { timeout: 30_000, interval: 500 }).toBe('global');
    await expect.poll(() => app.state(), { timeout: 30_000 }).toMatch(/^Connected/);
    expect(bed.echoFrom('laptop')).toBe(zurich);
  }, 60_000);

  it('the kill switch and DNS settings change the engine, its firewall and the resolver', async () => {
    await app.openSettings();
    await keepScreenshot(app.page, 'settings');
    const withKillSwitch = nftRuleset();
    await app.setKillSwitch(false);
    await expect.poll(() => laptop.json('config', 'get', 'kill_switch').kill_switch).toBe(false);
    await expect.poll(() => status().protection.kill_switch).toBe('off');
    expect(nftRuleset()).not.toBe(withKillSwitch);
    await app.setKillSwitch(true);
    await expect.poll(() => status().protection.kill_switch).toBe('active');

    // The system resolver is the engine's; it asks the resolver the setting names.
    expect(resolvConf()).toMatch(/^nameserver 127\.102\.121\.53$/m);
    expect(status().protection.dns).toEqual(['10.64.0.1']);
    await app.setDns('192.0.2.53');
    await expect.poll(() => laptop.json('config', 'get', 'dns').dns).toBe('192.0.2.53');
    await expect.poll(() => status().protection.dns).toEqual(['192.0.2.53']);
    expect(resolvConf()).toMatch(/^nameserver 127\.102\.121\.53$/m);
    // A value that is not an address is refused where it was typed; nothing changes.
    await app.setDns('not-an-address');
    await expect.poll(() => app.errorText()).toMatch(/address/i);
    expect(laptop.json('config', 'get', 'dns').dns).toBe('192.0.2.53');
    await app.setDns('auto');
    await expect.poll(() => status().protection.dns).toEqual(['10.64.0.1']);
  }, 90_000);

  it('diagnostics: every check with a verdict', async () => {
    await app.openDiagnostics();
    const rows = await app.runDiagnostics();
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.map((r) => r.verdict).join(' ')).toMatch(/ok/i);
    await keepScreenshot(app.page, 'diagnostics');
  }, 60_000);

  it('disconnect: the laptop is itself again', async () => {
    await app.openHome();
    await app.disconnect();
    await expect.poll(() => app.state(), { timeout: 20_000 }).toMatch(/^Disconnected/);
    expect(status().status).toBe('disconnected');
    expect(bed.echoFrom('laptop')).toBe(laptop.address);
  }, 60_000);

  it('the control plane out of reach: the page says so in plain words', async () => {
    const undo = bed.net.blackhole('ctrl');
    try {
      await app.connect();
      await expect
        .poll(() => app.errorText(), { timeout: 45_000 })
        .toMatch(/can.t reach .*service/i);
      await keepScreenshot(app.page, 'service-unreachable');
    } finally {
      undo();
      laptop.run('disconnect');
      await bed.relaysHealthy();
    }
  }, 90_000);

  it('refuses requests without the session, the cookie without the page key, a foreign Host or Origin', () => {
    const api = `http://${link.host}/api/v1/status`;
    expect(curl(api)).toBe('401');
    expect(curl(`http://${link.host}/`)).toBe('401');
    // A session of its own, from a second one-time link.
    const { cookie, key } = curlSignIn();
    const page = ['-H', `cookie: ${cookie}`, '-H', `x-ferry-page: ${key}`];
    expect(curl(...page, api)).toBe('200');
    // The cookie alone (what another listener on this host could be handed) opens nothing.
    expect(curl('-H', `cookie: ${cookie}`, api)).toBe('401');
    expect(curl('-H', `cookie: ${cookie}`, '-H', `x-ferry-page: ${'A'.repeat(43)}`, api)).toBe(
      '401',
    );
    expect(curl(...page, '-H', `host: rebind.example:${link.port}`, api)).toBe('403');
    expect(curl(...page, '-H', `host: 127.0.0.1:${link.port}`, api)).toBe('403');
    expect(curl(...page, '-H', 'origin: http://evil.example', api)).toBe('403');
    // A change without its Origin (a form posted by another site) is refused too.
    expect(curl(...page, '-X', 'POST', `http://${link.host}/api/v1/disconnect`)).toBe('403');
    // The link was spent by the first browser.
    expect(curl(link.href)).toBe('401');
  });

  it('the page reaches nothing but its own API', async () => {
    const page = app.page;
    const outside = bed.echoUrl;
    // Chromium reports the attempts it blocked as failed requests; none may get an answer.
    const own = (url: string) => url.startsWith(`http://${link.host}/`);
    const answered: string[] = [];
    const blocked: string[] = [];
    page.on('response', (r) => {
      if (!own(r.url())) answered.push(r.url());
    });
    page.on('requestfailed', (r) => {
      if (!own(r.url())) blocked.push(r.failure()?.errorText ?? 'failed');
    });
    const results = await page.evaluate(async (url) => {
      const attempt = async (what: string, f: () => Promise<unknown>) => {
        try {
          await f();
          return `${what}: reached`;
        } catch {
          return `${what}: blocked`;
        }
      };
      return [
        await attempt('fetch', () => fetch(url)),
        await attempt('own api', () => fetch('/api/v1/status').then((r) => r.json())),
        await attempt(
          'image',
          () =>
            new Promise((resolve, reject) => {
              // The page's own DOM (this runs in Chromium, not in Node).
              const img = new (globalThis as any).Image();
              img.onload = resolve;
              img.onerror = reject;
              img.src = url;
            }),
        ),
      ];
    }, outside);
    expect(results).toEqual(['fetch: blocked', 'own api: reached', 'image: blocked']);
    await settle(500);
    expect(answered).toEqual([]);
    expect(blocked.length).toBeGreaterThan(0);
    for (const why of blocked) expect(why).toMatch(/csp/i);
  }, 30_000);
  it('Settings lists the browsers signed in: a reload stays in, another is ended, this one signs out', async () => {
    const { cookie, key } = curlSignIn();
    const api = `http://${link.host}/api/v1/status`;
    const asCurl = ['-H', `cookie: ${cookie}`, '-H', `x-ferry-page: ${key}`, api];
    expect(curl(...asCurl)).toBe('200');
    const card = new BrowserSessionsCard(app);
    await card.open();
    // This browser, the session of the refusals above and curl's new one (the list is read
    // again each time Settings opens; what it showed before stays until then).
    await expect.poll(() => card.browsers().then((b) => b.length)).toBe(3);
    const shown = await card.browsers();
    expect(shown[0]!.title).toBe('This browser');
    expect(shown[0]!.detail).toMatch(/^Signed in .+ · last used .+ · ends by .+$/);
    expect(shown[1]!.title).toMatch(/^Browser signed in at /);
    await keepScreenshot(app.page, 'browser-sessions');

    // A reload keeps this tab signed in: its page key is in the tab's own storage.
    await app.page.reload();
    await card.open();
    expect((await card.browsers())[0]!.title).toBe('This browser');

    // Ending the newest other browser (curl's): its cookie and key open nothing any more.
    await card.end(shown[1]!.title);
    await expect.poll(() => card.browsers().then((b) => b.length)).toBe(shown.length - 1);
    expect(curl(...asCurl)).toBe('401');

    // Signing this browser out: the page says so, and nothing it had works.
    await card.signOutThisBrowser();
    await expect.poll(() => card.signedOutText()).toBe('This browser is signed out of Ferry.');
    await keepScreenshot(app.page, 'signed-out');
    const answer = await app.page.evaluate(async () => (await fetch('/api/v1/status')).status);
    expect(answer).toBe(401);
  }, 60_000);
});
