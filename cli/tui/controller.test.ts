// The terminal UI's controller against the in-memory engine at its client seam: it shows what
// the engine says (status, configuration, regions) and each key becomes the engine's call,
// its answer shown; the engine going away is said in words, with how to start it.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeEngine } from '../../engine/engine.fake.js';
import { describeFailure } from '../errors.js';
import { TuiController, dnsProblem, ruleTarget, type GraphicalOpened } from './controller.js';
import { EngineClientFake } from './engine-client.fake.js';
import { selectedRow, selectedRule } from './state.js';

const SOCKET = '/run/ferry/engine.sock';

describe('terminal UI controller', () => {
  let engine: FakeEngine;
  let fake: EngineClientFake;
  let controller: TuiController;
  let openGraphical: ReturnType<typeof vi.fn<() => Promise<GraphicalOpened>>>;
  const state = () => controller.getState();

  async function signedIn(): Promise<void> {
    await engine.init({ endpoint: 'https://ferry.example', protocol: 'wireguard' });
    await engine.createAccount({ device_name: 'laptop' });
  }

  function start(): void {
    controller = new TuiController({
      client: fake.client,
      describe: (e) => describeFailure(e, SOCKET),
      openGraphical,
      backoff: { delayMs: () => 20 },
    });
    controller.start();
  }

  beforeEach(() => {
    engine = new FakeEngine();
    fake = new EngineClientFake(engine);
    openGraphical = vi.fn(async () => ({
      url: 'http://127.0.0.1:4711/session/one-time',
      lines: [
        'Open Ferry in a browser on this machine (the link works once, within a minute):',
        '  http://127.0.0.1:4711/session/one-time',
      ],
    }));
  });
  afterEach(async () => {
    await controller?.stop();
  });

  it('shows the engine’s status, settings and regions as soon as it answers', async () => {
    await signedIn();
    start();
    await vi.waitFor(() => expect(state().regions).not.toBeNull());
    expect(state().link).toEqual({ state: 'up' });
    expect(state().status?.status).toBe('disconnected');
    expect(state().config?.kill_switch).toBe(true);
    expect(state().regions?.map((r) => r.id)).toEqual(['global', 'asia-east', 'europe-west']);
    expect(fake.openStreams).toBe(1);
  });

  it('c connects as configured; Enter switches to the selected region, and the engine says so', async () => {
    await signedIn();
    start();
    await vi.waitFor(() => expect(state().regions).not.toBeNull());
    await controller.handle('connect');
    expect(engine.status()).toMatchObject({ status: 'connected', region: 'global' });
    expect(state().status?.status).toBe('connected');
    expect(state().outcome).toMatchObject({
      text: 'Connected to global (node zrh-1) over WireGuard, ChaCha20-Poly1305',
      more: ['Exit IP 198.18.5.10 -> 198.19.5.20'],
    });
    expect(state().status?.latency_history).toEqual([12]);
    // The cursor sits on the current region; one down is Asia East.
    await vi.waitFor(() => expect(selectedRow(state())?.id).toBe('global'));
    await controller.handle('down');
    const switching = controller.handle('switch');
    expect(state().pending?.label).toBe('Switching to Asia East');
    await switching;
    expect(fake.calls.filter((c) => c.route === 'connect').at(-1)?.input).toMatchObject({
      body: { region: 'asia-east' },
    });
    expect(state().status).toMatchObject({ region: 'asia-east', node: { id: 'hk-1' } });
    expect(state().pending).toBeNull();
    // A new node's readings start afresh (the engine keeps them).
    expect(state().status).toMatchObject({ node: { id: 'hk-1' }, latency_history: [12] });
  });

  it('c while connected, or Enter on the region it is in, leaves the tunnel as it is', async () => {
    await signedIn();
    start();
    await controller.handle('connect');
    await vi.waitFor(() => expect(selectedRow(state())?.id).toBe('global'));
    const connects = () => fake.calls.filter((c) => c.route === 'connect').length;
    await controller.handle('connect');
    expect(state().outcome?.text).toBe(
      'Connected already: ⏎ switches to the selected region, d disconnects',
    );
    await controller.handle('switch');
    expect(state().outcome?.text).toBe('Connected to Global already');
    expect(connects()).toBe(1);
  });

  it('follows the live latency from the event stream', async () => {
    await signedIn();
    start();
    await controller.handle('connect');
    engine.measure(15);
    engine.measure(9.5);
    await vi.waitFor(() => expect(state().status?.latency_history).toEqual([12, 15, 9.5]));
    expect(state().status?.latency).toBe('9.5ms');
  });

  it('a region the plan does not allow: the engine’s refusal with what to do', async () => {
    await signedIn();
    start();
    await vi.waitFor(() => expect(state().regions).not.toBeNull());
    await controller.handle('down');
    await controller.handle('down');
    expect(selectedRow(state())?.id).toBe('europe-west');
    await controller.handle('switch');
    expect(state().outcome).toMatchObject({
      kind: 'error',
      text: 'your plan does not include europe-west',
      hints: ['netcli region list shows the regions your plan allows'],
    });
    // As the engine does: the refusal leaves it in error, saying why.
    expect(engine.status()).toMatchObject({
      status: 'error',
      error: { code: 'region-not-in-plan' },
    });
  });

  it('k and s flip the engine’s own settings, and show what the engine answered', async () => {
    await signedIn();
    start();
    await vi.waitFor(() => expect(state().config).not.toBeNull());
    await controller.handle('kill-switch');
    expect(engine.config.kill_switch).toBe(false);
    expect(state().config?.kill_switch).toBe(false);
    expect(state().outcome?.text).toBe('Kill switch off: saved for the next connect');
    await controller.handle('kill-switch');
    expect(engine.config.kill_switch).toBe(true);
    await controller.handle('split');
    expect(engine.config.split).toBe('off');
    expect(state().outcome?.text).toBe('Split off: saved for the next connect');
    // Changed elsewhere (netcli config set) and not read since: k flips the engine's value.
    engine.config = { ...engine.config, kill_switch: false };
    expect(state().config?.kill_switch).toBe(true);
    await controller.handle('kill-switch');
    expect(engine.config.kill_switch).toBe(true);
    expect(state().outcome?.text).toBe('Kill switch on: saved for the next connect');
  });

  it('n takes a DNS value: refused before sending when it is no address, the engine’s refusal shown', async () => {
    await signedIn();
    start();
    await vi.waitFor(() => expect(state().config).not.toBeNull());
    await controller.handle('dns');
    for (const ch of 'nope') await controller.dnsKey({ kind: 'type', text: ch });
    await controller.dnsKey({ kind: 'submit' });
    expect(state().dnsEdit).toEqual({
      text: 'nope',
      problem: 'nope is neither auto nor an IP address',
    });
    expect(fake.calls.some((c) => c.route === 'setConfigKey')).toBe(false);
    for (let i = 0; i < 4; i++) await controller.dnsKey({ kind: 'erase' });
    await controller.dnsKey({ kind: 'type', text: '9.9.9.9' });
    await controller.dnsKey({ kind: 'submit' });
    expect(state().dnsEdit).toBeNull();
    expect(engine.config.dns).toBe('9.9.9.9');
    expect(state().outcome?.text).toBe('DNS 9.9.9.9: saved for the next connect');
    // An address no resolver has: the engine refuses, in its words.
    await controller.handle('dns');
    await controller.dnsKey({ kind: 'type', text: '224.0.0.1' });
    await controller.dnsKey({ kind: 'submit' });
    expect(state().outcome?.kind).toBe('error');
    // Said once: on the error's own line (no hint repeats it).
    expect(state().outcome?.text).toMatch(/multicast/);
    expect(state().outcome?.hints.join(' ')).not.toMatch(/multicast/);
    expect(engine.config.dns).toBe('9.9.9.9');
    // Esc leaves it as it was.
    await controller.handle('dns');
    await controller.dnsKey({ kind: 'type', text: 'auto' });
    await controller.dnsKey({ kind: 'cancel' });
    expect(state().dnsEdit).toBeNull();
    expect(engine.config.dns).toBe('9.9.9.9');
  });

  it('u opens the split rules as the engine lists them; Esc closes them', async () => {
    await signedIn();
    await engine.addSplitRule({ app: '/usr/bin/firefox', via: 'tunnel' });
    start();
    await controller.handle('split-rules');
    expect(fake.calls.some((c) => c.route === 'listSplitRules')).toBe(true);
    expect(state().splitRules).toMatchObject({
      rules: [{ app: '/usr/bin/firefox', via: 'tunnel' }],
      cursor: 0,
      draft: null,
    });
    await controller.rulesKey({ kind: 'close' });
    expect(state().splitRules).toBeNull();
  });

  it('a adds a domain rule: what it is for, then its way; the engine’s answer listed and selected', async () => {
    await signedIn();
    await engine.addSplitRule({ domain: 'zz.example', via: 'tunnel' });
    start();
    await controller.handle('split-rules');
    await controller.rulesKey({ kind: 'add' });
    for (const ch of '*.Example.COM') await controller.rulesKey({ kind: 'type', text: ch });
    await controller.rulesKey({ kind: 'submit' });
    expect(state().splitRules?.draft).toEqual({ step: 'via', target: { domain: 'example.com' } });
    expect(fake.calls.some((c) => c.route === 'addSplitRule')).toBe(false);
    const adding = controller.rulesKey({ kind: 'via', via: 'direct' });
    expect(state().pending?.label).toBe('Adding the split rule for example.com');
    await adding;
    expect(fake.calls.find((c) => c.route === 'addSplitRule')?.input).toEqual({
      body: { domain: 'example.com', via: 'direct' },
    });
    expect(state().splitRules?.rules).toEqual([
      { domain: 'example.com', via: 'direct' },
      { domain: 'zz.example', via: 'tunnel' },
    ]);
    expect(selectedRule(state())).toEqual({ domain: 'example.com', via: 'direct' });
    expect(state().splitRules?.draft).toBeNull();
    expect(state().outcome?.text).toBe(
      'Split rule added: example.com and its subdomains go directly, around the tunnel',
    );
    // The same domain again: its way replaced.
    await controller.rulesKey({ kind: 'add' });
    await controller.rulesKey({ kind: 'type', text: 'example.com' });
    await controller.rulesKey({ kind: 'submit' });
    await controller.rulesKey({ kind: 'via', via: 'tunnel' });
    expect((await engine.listSplitRules()).rules).toEqual([
      { domain: 'example.com', via: 'tunnel' },
      { domain: 'zz.example', via: 'tunnel' },
    ]);
    expect(state().splitRules?.rules?.[0]).toEqual({ domain: 'example.com', via: 'tunnel' });
  });

  it('a program’s path (from /) makes a program rule', async () => {
    await signedIn();
    start();
    await controller.handle('split-rules');
    await controller.rulesKey({ kind: 'add' });
    await controller.rulesKey({ kind: 'type', text: '/opt/My App/run' });
    await controller.rulesKey({ kind: 'submit' });
    await controller.rulesKey({ kind: 'via', via: 'tunnel' });
    expect(fake.calls.find((c) => c.route === 'addSplitRule')?.input).toEqual({
      body: { app: '/opt/My App/run', via: 'tunnel' },
    });
    expect(state().splitRules?.rules).toEqual([{ app: '/opt/My App/run', via: 'tunnel' }]);
    expect(state().outcome?.text).toBe(
      'Split rule added: /opt/My App/run (and what it starts) goes through the tunnel only',
    );
  });

  it('a bad domain or path is refused before anything is sent; Esc leaves the rules as they were', async () => {
    await signedIn();
    start();
    await controller.handle('split-rules');
    await controller.rulesKey({ kind: 'add' });
    await controller.rulesKey({ kind: 'type', text: 'not a domain' });
    await controller.rulesKey({ kind: 'submit' });
    expect(state().splitRules?.draft).toEqual({
      step: 'target',
      text: 'not a domain',
      problem:
        'not a domain is not a domain name: labels of letters, digits and dashes, e.g. example.com',
    });
    // Typing on clears the problem.
    await controller.rulesKey({ kind: 'erase' });
    expect(state().splitRules?.draft).toMatchObject({ text: 'not a domai', problem: null });
    await controller.rulesKey({ kind: 'cancel' });
    expect(state().splitRules?.draft).toBeNull();
    await controller.rulesKey({ kind: 'add' });
    await controller.rulesKey({ kind: 'type', text: '/usr/../bin/sh' });
    await controller.rulesKey({ kind: 'submit' });
    expect(state().splitRules?.draft).toMatchObject({
      problem: '/usr/../bin/sh is not a program’s absolute path, e.g. /usr/bin/firefox',
    });
    // The way's step, cancelled: nothing sent either.
    await controller.rulesKey({ kind: 'cancel' });
    await controller.rulesKey({ kind: 'add' });
    await controller.rulesKey({ kind: 'type', text: 'example.com' });
    await controller.rulesKey({ kind: 'submit' });
    await controller.rulesKey({ kind: 'cancel' });
    expect(state().splitRules).toMatchObject({ rules: [], draft: null });
    expect(fake.calls.some((c) => c.route === 'addSplitRule')).toBe(false);
  });

  it('x removes the selected rule by its domain or program; the engine’s refusal shown in words', async () => {
    await signedIn();
    await engine.addSplitRule({ domain: 'example.com', via: 'direct' });
    await engine.addSplitRule({ app: '/usr/bin/firefox', via: 'tunnel' });
    start();
    await controller.handle('split-rules');
    await controller.rulesKey({ kind: 'move', by: 1 });
    await controller.rulesKey({ kind: 'remove' });
    expect(fake.calls.find((c) => c.route === 'removeSplitRule')?.input).toEqual({
      query: { app: '/usr/bin/firefox' },
    });
    expect(state().outcome?.text).toBe('Split rule for /usr/bin/firefox removed');
    expect(state().splitRules?.rules).toEqual([{ domain: 'example.com', via: 'direct' }]);
    // Removed elsewhere meanwhile (netcli split remove): the engine's refusal, the list read again.
    await engine.removeSplitRule({ domain: 'example.com' });
    await controller.rulesKey({ kind: 'remove' });
    expect(fake.calls.filter((c) => c.route === 'removeSplitRule').at(-1)?.input).toEqual({
      query: { domain: 'example.com' },
    });
    expect(state().outcome).toMatchObject({
      kind: 'error',
      text: 'no split rule for domain example.com',
      hints: ['netcli split list shows the split rules'],
    });
    expect(state().splitRules?.rules).toEqual([]);
    await controller.rulesKey({ kind: 'remove' });
    expect(state().outcome?.text).toBe('No split rule to remove: a adds one');
    expect(fake.calls.filter((c) => c.route === 'removeSplitRule')).toHaveLength(2);
  });

  it('the split rules unreadable: the panel says why', async () => {
    await signedIn();
    start();
    await vi.waitFor(() => expect(state().link.state).toBe('up'));
    fake.goAway();
    await controller.handle('split-rules');
    expect(state().splitRules?.failure?.message).toBe(`no engine answers on ${SOCKET}`);
    fake.comeBack();
  });

  it('r measures every node and shows the regions again', async () => {
    await signedIn();
    start();
    await vi.waitFor(() => expect(state().regions).not.toBeNull());
    const reads = fake.calls.filter((c) => c.route === 'listRegions').length;
    await controller.handle('refresh');
    expect(fake.calls.find((c) => c.route === 'latencyCheck')?.input).toMatchObject({
      body: { all: true },
    });
    expect(fake.calls.filter((c) => c.route === 'listRegions').length).toBeGreaterThan(reads);
    expect(state().outcome?.text).toBe(
      'Measured 2 nodes in 0.8 s, 3 samples each by authenticated UDP probe',
    );
  });

  it('g opens the graphical mode and shows its link', async () => {
    await signedIn();
    start();
    await controller.handle('graphical');
    expect(openGraphical).toHaveBeenCalledOnce();
    expect(state().outcome).toMatchObject({
      kind: 'info',
      text: 'Open Ferry in a browser on this machine (the link works once, within a minute):',
      more: ['http://127.0.0.1:4711/session/one-time'],
    });
  });

  it('d disconnects', async () => {
    await signedIn();
    start();
    await controller.handle('connect');
    await controller.handle('disconnect');
    expect(engine.status().status).toBe('disconnected');
    expect(state().status?.status).toBe('disconnected');
    expect(state().outcome?.text).toBe('Disconnected');
  });

  it('says how to start the engine while it does not answer, and follows it again when it does', async () => {
    await signedIn();
    fake.goAway();
    start();
    await vi.waitFor(() => expect(state().link.state).toBe('down'));
    expect(state().link).toMatchObject({
      state: 'down',
      failure: {
        message: `no engine answers on ${SOCKET}`,
        hints: ['is the engine running? start it with: sudo netcli daemon'],
      },
    });
    fake.comeBack();
    await vi.waitFor(() => expect(state().link.state).toBe('up'));
    await vi.waitFor(() => expect(state().regions).not.toBeNull());
    // Going away mid-stream: the same words, and back again.
    fake.goAway();
    await vi.waitFor(() => expect(state().link.state).toBe('down'));
    fake.comeBack();
    await vi.waitFor(() => expect(state().link.state).toBe('up'));
    expect(fake.openStreams).toBe(1);
  });

  it('not signed in: the regions say what to do, the rest still shows', async () => {
    await engine.init({ endpoint: 'https://ferry.example' });
    start();
    await vi.waitFor(() => expect(state().regionsFailure).not.toBeNull());
    expect(state().regionsFailure).toMatchObject({
      message: 'this device is not signed in',
      hints: ['netcli account create or netcli login <number>'],
    });
    expect(state().config).not.toBeNull();
    expect(state().status?.signed_in).toBe(false);
  });

  it('stops following when stopped', async () => {
    await signedIn();
    start();
    await vi.waitFor(() => expect(fake.openStreams).toBe(1));
    await controller.stop();
    expect(fake.openStreams).toBe(0);
  });
});

describe('split rule targets', () => {
  it('a path from /, else a domain, as the contracts read them', () => {
    expect(ruleTarget(' Example.com. ')).toEqual({ target: { domain: 'example.com' } });
    expect(ruleTarget('cn')).toEqual({ target: { domain: 'cn' } });
    expect(ruleTarget('/usr/bin/firefox')).toEqual({ target: { app: '/usr/bin/firefox' } });
    expect(ruleTarget('  ')).toEqual({
      problem: 'type a domain (example.com) or a program’s path (/usr/bin/firefox)',
    });
    expect(ruleTarget('-bad-.com')).toEqual({
      problem:
        '-bad-.com is not a domain name: labels of letters, digits and dashes, e.g. example.com',
    });
    expect(
      ruleTarget(`${'a'.repeat(60)}.${'b'.repeat(60)}.${'c'.repeat(60)}.${'d'.repeat(80)}`),
    ).toMatchObject({ problem: /is not a domain name/ });
    expect(ruleTarget(`/${'a'.repeat(5000)}`)).toMatchObject({
      problem: /^\/a{58}… is not a program’s path of at most 4096 characters$/,
    });
  });
});

describe('DNS values', () => {
  it('takes auto and IP addresses; the engine checks the rest', () => {
    expect(dnsProblem('auto')).toBeNull();
    expect(dnsProblem('9.9.9.9')).toBeNull();
    expect(dnsProblem('2606:4700:4700::1111')).toBeNull();
    expect(dnsProblem('')).toBe('type auto or the address of a DNS resolver');
    expect(dnsProblem('9.9.9')).toBe('9.9.9 is neither auto nor an IP address');
  });
});
