// The engine's flows against the real control plane (in process, SQLite) with a scripted tunnel
// manager in place of the OS: sign-in, connect (the spec's body), config changes a live tunnel
// follows, loss and recovery, failures that leave nothing behind, rules, sign-out.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, type LocalStatus } from '../contracts/index.js';
import { injectFetch } from '../server/testing/inject-fetch.js';
import { startControlPlane } from '../server/testing/control-plane-harness.js';
import type { EngineEvent } from './engine-api.js';
import { FerryError } from './errors.js';
import { EngineFixture, TEST_SERVICE } from './testing/engine-fixture.js';
import { engineRefusal } from './testing/refusal.js';

let resets = 0;
const fx = new EngineFixture({
  prefix: 'ferry-engine-',
  startControlPlane: () => startControlPlane('sqlite'),
  fetchOf: (h) => injectFetch(h.plane.app),
  engine: { resetConnections: () => (resets += 1), deviceName: () => 'test laptop' },
});
beforeAll(() => fx.startControlPlane());
afterAll(() => fx.closeControlPlane());
beforeEach(() => {
  resets = 0;
  return fx.start();
});
afterEach(() => fx.stop());

describe('the engine', () => {
  it('says what is missing before it can connect', async () => {
    expect(fx.engine.status()).toMatchObject({
      status: 'disconnected',
      signed_in: false,
      service_configured: false,
    });
    expect((await engineRefusal(fx.engine.connect({}))).code).toBe('service-not-configured');
    const init = await fx.engine.init({ endpoint: `${TEST_SERVICE}/v1/`, protocol: 'ferry' });
    expect(init).toMatchObject({
      changed: ['service', 'protocol'],
      effect: 'saved',
      config: { service: TEST_SERVICE, protocol: 'ferry' },
    });
    expect((await engineRefusal(fx.engine.connect({}))).code).toBe('not-signed-in');
    expect(fx.engine.status().status).toBe('disconnected');
    expect(fx.tunnels.open()).toEqual([]);
  });

  it('creates an account, signs in as a new device with keys made here, and keeps it', async () => {
    const number = await fx.signIn();
    expect(number).toMatch(/^\d{16}$/);
    const { device } = await fx.engine.account();
    const keys = await fx.engine.keys.publicKeys();
    expect(device).toMatchObject({ name: 'test laptop', wireguard_public_key: keys.wireguard });
    // A restarted host is still signed in.
    await fx.restart();
    expect(fx.engine.status().signed_in).toBe(true);
    expect((await fx.engine.listDevices()).devices.map((d) => d.id)).toEqual([device.id]);
  });

  it('connects with the spec’s body once the tunnel carries traffic, telling the cipher in effect', async () => {
    await fx.signIn();
    fx.tunnels.latencyMs = 23.4;
    const events: EngineEvent[] = [];
    fx.engine.subscribe((e) => events.push(e));
    const answer = await fx.engine.connect({
      encryption: 'AES-256-GCM',
      protocol: 'wireguard',
      region: 'auto',
      usage: 'remote-work',
    });
    expect(answer).toMatchObject({
      status: 'connected',
      latency: '23ms',
      protocol: 'wireguard',
      cipher: 'ChaCha20-Poly1305',
      mode: 'secure',
      transport: 'udp',
      interface: expect.stringMatching(/^fytmain[0-9a-f]{6}$/),
      exit_ip: { before: expect.any(String), after: expect.any(String) },
    });
    expect(answer.notices.map((x) => x.code)).toContain('cipher-substituted');
    expect(answer.node?.endpoint).toMatch(/:51820$/);
    // The tunnel got the device's own private key for the protocol in use, and a full tunnel.
    const plan = fx.tunnels.plans[0]!;
    expect(plan.privateKey).toBe(await fx.engine.keys.privateKey('wireguard'));
    expect(plan.routes).toEqual({ kind: 'all' });
    expect(events.map((e) => (e.type === 'status' ? e.status.status : e.type))).toEqual([
      'connecting',
      'connected',
      'notice',
    ]);
    expect(fx.engine.status()).toMatchObject({ status: 'connected', region: answer.region });
    // The control plane's status shows the client's own measurement.
    const token = await fx.engine.sessions.token();
    await expect
      .poll(async () => (await fx.controlPlane.client(token).status()).latency, { timeout: 5_000 })
      .toBe('23ms');
  });

  it('follows the tunnel’s latency, loss and recovery', async () => {
    await fx.signIn();
    await fx.engine.connect({ region: 'asia-east' });
    fx.tunnels.last().emit({ type: 'latency', ms: 4.26 });
    expect(fx.engine.status().latency).toBe('4.3ms');
    fx.tunnels.last().emit({ type: 'lost', reason: 'handshake' });
    expect(fx.engine.status()).toMatchObject({ status: 'reconnecting', latency: null });
    fx.tunnels.last().emit({ type: 'restored' });
    expect(fx.engine.status()).toMatchObject({ status: 'connected', region: 'asia-east' });
  });

  it('keeps the tunnel’s latency history, and the latency as a number beside its text', async () => {
    await fx.signIn();
    const seen: LocalStatus[] = [];
    fx.engine.subscribe((e) => void (e.type === 'status' && seen.push(e.status)));
    await fx.engine.connect({ region: 'asia-east' });
    const first = fx.engine.status();
    expect(first.latency_ms).toBe(Number(first.latency!.replace('ms', '')));
    expect(first.latency_history).toEqual([first.latency_ms]);
    fx.tunnels.last().emit({ type: 'latency', ms: 4.26 });
    expect(fx.engine.status()).toMatchObject({
      latency: '4.3ms',
      latency_ms: 4.3,
      latency_history: [first.latency_ms, 4.3],
    });
    // The status event of the measurement carries it; the one before stays as it was sent.
    expect(seen.at(-1)?.latency_history).toEqual([first.latency_ms, 4.3]);
    expect(seen.at(-2)?.latency_history).toEqual([first.latency_ms]);
    await fx.engine.disconnect();
    expect(fx.engine.status()).toMatchObject({
      latency: null,
      latency_ms: null,
      latency_history: [],
    });
  });

  it('reconnects a live tunnel when a setting that needs a new session changes', async () => {
    await fx.signIn();
    await fx.engine.connect({ region: 'asia-east' });
    const change = await fx.engine.setConfigKey('protocol', 'Ferry');
    expect(change).toMatchObject({ changed: ['protocol'], effect: 'reconnected' });
    expect(fx.engine.status()).toMatchObject({ status: 'connected', protocol: 'ferry' });
    expect(
      fx.tunnels.plans.map((p: { answer: { protocol: string } }) => p.answer.protocol),
    ).toEqual(['wireguard', 'ferry']);
    // The old tunnel went before the new one came; the connect's own region stayed.
    expect(fx.tunnels.open()).toEqual([fx.tunnels.plans[1]!.interfaceName]);
    expect(fx.tunnels.plans[1]!.answer.region).toBe('asia-east');
    const cipher = await fx.engine.patchConfig({ encryption: 'AES-256-GCM' });
    expect(cipher.effect).toBe('reconnected');
    expect(fx.engine.status().cipher).toBe('AES-256-GCM');
    const ui = await fx.engine.setConfigKey('ui', 'graphical');
    expect(ui.effect).toBe('saved');
    expect(fx.tunnels.plans).toHaveLength(3);
  });

  it('follows a setting named again that a connect option had overridden', async () => {
    await fx.signIn();
    // The saved protocol is wireguard; this connect asks for Ferry.
    await fx.engine.connect({ region: 'asia-east', protocol: 'ferry' });
    expect(fx.engine.status().protocol).toBe('ferry');
    const same = await fx.engine.setConfigKey('protocol', 'wireguard');
    expect(same).toMatchObject({ changed: [], effect: 'reconnected' });
    expect(fx.engine.status()).toMatchObject({ status: 'connected', protocol: 'wireguard' });
    expect(fx.tunnels.plans.at(-1)!.answer.region).toBe('asia-east');
    // Named again while the tunnel already runs with it: nothing to do.
    const again = await fx.engine.setConfigKey('protocol', 'wireguard');
    expect(again).toMatchObject({ changed: [], effect: 'saved' });
    expect(fx.tunnels.plans).toHaveLength(2);
  });

  it('uses the Ferry TCP transport when obfuscation is on', async () => {
    await fx.signIn();
    await fx.engine.patchConfig({ obfuscation: 'on' });
    const answer = await fx.engine.connect({ protocol: 'ferry' });
    expect(answer.transport).toBe('tcp');
    expect(fx.tunnels.plans[0]!.transport).toBe('tcp');
  });

  it('fails closed and leaves nothing when the tunnel does not come up', async () => {
    await fx.signIn();
    fx.tunnels.failNext = new FerryError('tunnel-failed', 'no handshake within 10 s');
    const e = await engineRefusal(fx.engine.connect({}));
    expect(e.code).toBe('tunnel-failed');
    expect(fx.engine.status()).toMatchObject({
      status: 'error',
      error: { code: 'tunnel-failed' },
      latency: null,
      node: null,
    });
    expect(fx.tunnels.open()).toEqual([]);
    // The control plane's session ended too.
    const token = await fx.engine.sessions.token();
    expect((await fx.controlPlane.client(token).status()).status).toBe('disconnected');
    // A new connect leaves the error.
    await fx.engine.connect({});
    expect(fx.engine.status()).toMatchObject({ status: 'connected', error: null });
  });

  it('passes the control plane’s refusals on with their code', async () => {
    await fx.signIn();
    const e = await engineRefusal(fx.engine.connect({ region: 'eu-west' }));
    expect(e).toBeInstanceOf(ApiError);
    expect(e.code).toBe('region-not-in-plan');
    expect(fx.engine.status()).toMatchObject({
      status: 'error',
      error: { code: 'region-not-in-plan' },
    });
    expect(fx.tunnels.open()).toEqual([]);
  });

  it('refuses a node that runs on this machine (a full tunnel to it would loop)', async () => {
    await fx.restart({ isThisMachine: async (host) => host === '192.0.2.10' });
    await fx.signIn();
    const e = await engineRefusal(fx.engine.connect({}));
    expect(e.code).toBe('node-is-local');
    expect(e.message).toMatch(/npm run demo/);
    expect(fx.tunnels.plans).toEqual([]);
    expect(fx.engine.status().status).toBe('error');
  });

  it('refuses a mode that disagrees with the usage', async () => {
    await fx.signIn();
    const e = await engineRefusal(fx.engine.connect({ usage: 'streaming', mode: 'secure' }));
    expect(e.code).toBe('config-invalid');
    expect(fx.engine.status().status).toBe('disconnected');
  });

  it('lets a newer connect supersede one under way', async () => {
    await fx.signIn();
    const gate = fx.tunnels.holdNext();
    const first = fx.engine.connect({ region: 'asia-east' });
    await fx.tunnels.waitForPending();
    const second = fx.engine.connect({ region: 'global' });
    gate();
    expect((await engineRefusal(first)).code).toBe('superseded');
    expect((await second).region).toBe('global');
    expect(fx.tunnels.open()).toEqual([fx.engine.status().interface]);
  });

  it('disconnects, removing the tunnel and ending the session', async () => {
    await fx.signIn();
    await fx.engine.connect({});
    // Pooled connections from before the tunnel go when it comes and when it goes.
    expect(resets).toBe(1);
    const status = await fx.engine.disconnect();
    expect(resets).toBe(2);
    expect(status).toMatchObject({ status: 'disconnected', node: null, latency: null });
    expect(fx.tunnels.open()).toEqual([]);
    const token = await fx.engine.sessions.token();
    expect((await fx.controlPlane.client(token).status()).status).toBe('disconnected');
    expect((await fx.engine.disconnect()).status).toBe('disconnected');
  });

  it('turns a region rule into the area and strategy, refusing unknown areas', async () => {
    await fx.signIn();
    const bad = await engineRefusal(
      fx.engine.addRegionRule({ area: 'mars', strategy: 'least-load' }),
    );
    expect(bad.code).toBe('config-invalid');
    expect((bad as FerryError).errors?.[0]?.allowed).toContain('asia');
    await fx.engine.addRegionRule({ area: 'asia', strategy: 'least-load', name: 'work' });
    const answer = await fx.engine.connect({ region: 'work' });
    expect(answer.region).toBe('asia-east');
    expect(answer.routing.strategy).toContain('least-load');
    expect((await fx.engine.listRegions()).rules).toEqual([
      { name: 'work', area: 'asia', strategy: 'least-load' },
    ]);
    await fx.engine.removeRegionRule('work');
    expect((await fx.engine.listRegions()).rules).toEqual([]);
  });

  it('signs out: disconnects, revokes the device and forgets it', async () => {
    const number = await fx.signIn();
    const other = await fx.controlPlane.signIn(number, { name: 'phone' });
    await fx.engine.connect({});
    const { device } = await fx.engine.account();
    expect(await fx.engine.logout()).toEqual({ signed_in: false });
    expect(fx.engine.status()).toMatchObject({ status: 'disconnected', signed_in: false });
    expect(fx.tunnels.open()).toEqual([]);
    const left = (await fx.controlPlane.client(other.token).listDevices()).devices.map((d) => d.id);
    expect(left).not.toContain(device.id);
    expect((await engineRefusal(fx.engine.account())).code).toBe('not-signed-in');
    // Signing in again makes a new device with new keys.
    const before = await fx.engine.keys.publicKeys();
    await fx.engine.login({ account_number: number });
    expect((await fx.engine.keys.publicKeys()).wireguard).not.toBe(before.wireguard);
  });

  it('disconnects on shutdown', async () => {
    await fx.signIn();
    await fx.engine.connect({});
    await fx.engine.shutdown();
    expect(fx.engine.status().status).toBe('disconnected');
    expect(fx.tunnels.open()).toEqual([]);
    expect(
      (await engineRefusal(fx.engine.connect({}).catch((e: unknown) => Promise.reject(e)))).code,
    ).toBe('superseded');
  });
});
