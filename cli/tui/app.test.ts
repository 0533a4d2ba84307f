// The terminal UI drawn by ink on a terminal in memory, keys typed on it: what a person sees
// (state, latency, regions, settings, the help line) and what each key does to the engine.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Instance } from 'ink';
import { FakeEngine } from '../../engine/engine.fake.js';
import { describeFailure } from '../errors.js';
import { TuiController } from './controller.js';
import { EngineClientFake } from './engine-client.fake.js';
import { mountTerminalUi } from './run.js';
import { KEYS, fakeTerminal, type FakeTerminal } from './terminal.fake.js';

describe('terminal UI on a terminal', () => {
  let engine: FakeEngine;
  let fake: EngineClientFake;
  let controller: TuiController;
  let terminal: FakeTerminal;
  let app: Instance;
  const screen = () => terminal.screen.lastFrame();
  const sees = (text: string | RegExp) =>
    vi.waitFor(() => expect(screen()).toMatch(text), { timeout: 5_000 });
  /** The row of the region list that names `region`. */
  const line = (region: string) =>
    screen()
      .split('\n')
      .find((l) => l.startsWith(`  ${region} `) || l.startsWith(`› ${region} `)) ?? '';

  beforeEach(async () => {
    engine = new FakeEngine();
    await engine.init({ endpoint: 'https://ferry.example', protocol: 'wireguard' });
    await engine.createAccount({ device_name: 'laptop' });
    fake = new EngineClientFake(engine);
    controller = new TuiController({
      client: fake.client,
      describe: (e) => describeFailure(e, '/run/ferry/engine.sock'),
      openGraphical: async () => ({
        url: 'http://127.0.0.1:4711/s/x',
        lines: ['Open Ferry in a browser on this machine:', '  http://127.0.0.1:4711/s/x'],
      }),
      backoff: { delayMs: () => 20 },
    });
    terminal = fakeTerminal();
    controller.start();
    app = mountTerminalUi(controller, terminal, { debug: true });
  });
  afterEach(async () => {
    app.unmount();
    await controller.stop();
  });

  it('shows the state, the settings, the regions and the keys', async () => {
    await sees('Disconnected');
    await sees('Asia East');
    expect(screen()).toContain('Kill switch on (holds from the next connect)');
    expect(screen()).toContain('Split auto');
    expect(screen()).toContain('DNS auto');
    expect(line('Europe West')).toContain('not in your plan');
    expect(screen()).toContain(
      'c connect  d disconnect  ↑↓ region  ⏎ switch  k kill switch  s split  u rules  n dns  r latency  g graphical  q quit',
    );
    expect(terminal.keyboard.rawMode).toBe(true);
  });

  it('c connects: Connected, where, the latency and its history', async () => {
    await sees('Asia East');
    terminal.keyboard.press('c');
    await sees(/● Connected {2}Global · node zrh-1 · WireGuard/);
    await sees(/Latency 12ms {2}▄/);
    await sees('Transport: using UDP, the first the autopilot tried');
    expect(line('Global')).toContain('● connected');
    engine.measure(20);
    await sees(/Latency 20ms {2}▁█/);
  });

  it('the arrows choose a region and Enter switches to it', async () => {
    await sees('Asia East');
    expect(line('Global')).toMatch(/^› /);
    terminal.keyboard.press(KEYS.down);
    await vi.waitFor(() => expect(line('Asia East')).toMatch(/^› /));
    terminal.keyboard.press(KEYS.enter);
    await sees(/● Connected {2}Asia East · node hk-1/);
    expect(engine.status().region).toBe('asia-east');
    terminal.keyboard.press(KEYS.up);
    await vi.waitFor(() => expect(line('Global')).toMatch(/^› /));
    terminal.keyboard.press(KEYS.enter);
    await sees(/● Connected {2}Global · node zrh-1/);
  });

  it('k flips the kill switch in the engine, n takes a DNS address', async () => {
    await sees('Kill switch on');
    terminal.keyboard.press('k');
    await sees('Kill switch off');
    expect(engine.config.kill_switch).toBe(false);
    terminal.keyboard.press('n');
    await sees('esc cancel');
    for (const key of ['1', '.', '1', '.', '1', '.', '1']) terminal.keyboard.press(key);
    await sees('DNS resolver (now auto): 1.1.1.1');
    terminal.keyboard.press(KEYS.enter);
    await sees('DNS 1.1.1.1');
    expect(engine.config.dns).toBe('1.1.1.1');
    // Letters typed into the DNS value are not keys meanwhile.
    terminal.keyboard.press('n');
    terminal.keyboard.press('q');
    await sees('DNS resolver (now 1.1.1.1): q');
    terminal.keyboard.press(KEYS.escape);
    await sees('q quit');
    // Pasted (one read of the terminal): each character a key, Enter included.
    terminal.keyboard.press('n');
    terminal.keyboard.press('8.8.8.8\r');
    await sees('DNS 8.8.8.8');
    expect(engine.config.dns).toBe('8.8.8.8');
  });

  it('u shows the split rules: a adds one with its way, x removes the selected one, Esc closes', async () => {
    await engine.addSplitRule({ app: '/usr/bin/firefox', via: 'tunnel' });
    await sees('Asia East');
    terminal.keyboard.press('u');
    await sees('a add  ↑↓ rule  x remove  esc close');
    expect(screen()).toMatch(/^ {2}Split rules {46}WAY$/m);
    expect(screen()).toMatch(
      /^› program \/usr\/bin\/firefox {33}tunnel {2}through the tunnel only$/m,
    );
    // The regions give way to the rules while they are open.
    expect(screen()).not.toContain('Asia East');

    terminal.keyboard.press('a');
    await sees('Split rule for (a domain, or a program’s path from /):');
    expect(screen()).toContain('a domain, or a program’s path from /  ⏎ next  esc cancel');
    // A bad one: said under the prompt, nothing sent.
    terminal.keyboard.press('bad domain!\r');
    await sees('bad domain! is not a domain name: labels of letters, digits and dashes');
    expect(fake.calls.some((c) => c.route === 'addSplitRule')).toBe(false);
    for (let i = 0; i < 'bad domain!'.length; i++) terminal.keyboard.press(KEYS.backspace);
    terminal.keyboard.press('Example.com\r');
    await sees('example.com and its subdomains: d direct (around the tunnel) or t tunnel');
    expect(screen()).toContain('d direct  t tunnel  esc cancel');
    terminal.keyboard.press('d');
    await sees(/^› domain {2}example\.com {38}direct {2}around the tunnel$/m);
    await sees('Split rule added: example.com and its subdomains go directly, around the tunnel');
    expect(fake.calls.find((c) => c.route === 'addSplitRule')?.input).toEqual({
      body: { domain: 'example.com', via: 'direct' },
    });
    expect(screen()).toMatch(/^ {2}program \/usr\/bin\/firefox/m);

    terminal.keyboard.press('x');
    await sees('Split rule for example.com removed');
    expect(fake.calls.find((c) => c.route === 'removeSplitRule')?.input).toEqual({
      query: { domain: 'example.com' },
    });
    expect(screen()).not.toContain('domain  example.com');
    expect((await engine.listSplitRules()).rules).toEqual([
      { app: '/usr/bin/firefox', via: 'tunnel' },
    ]);

    terminal.keyboard.press(KEYS.escape);
    await sees('q quit');
    expect(screen()).toContain('Asia East');
    expect(screen()).not.toContain('Split rules');
  });

  it('g shows the graphical mode’s link', async () => {
    await sees('Disconnected');
    terminal.keyboard.press('g');
    await sees(/Open Ferry in a browser on this machine:\n {2}http:\/\/127\.0\.0\.1:4711\/s\/x\n/);
  });

  it('says how to start the engine when it does not answer', async () => {
    await sees('Disconnected');
    fake.goAway();
    await sees('Engine not reachable');
    expect(screen()).toContain(
      'The engine does not answer: no engine answers on /run/ferry/engine.sock',
    );
    expect(screen()).toContain('hint: is the engine running? start it with: sudo netcli daemon');
    fake.comeBack();
    await sees('Disconnected');
  });

  it('q quits', async () => {
    await sees('Disconnected');
    terminal.keyboard.press('q');
    await app.waitUntilExit();
    expect(terminal.keyboard.rawMode).toBe(false);
  });
});
