// The engine's flows against the real control plane (in process, SQLite) with a scripted tunnel
// manager in place of the OS: sign-in, connect (the spec's body), config changes a live tunnel
// follows, loss and recovery, failures that leave nothing behind, rules, sign-out.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../contracts/index.js';
import { FakeDataPlane } from '../native/tunnel.fake.js';
import { injectFetch } from '../server/testing/inject-fetch.js';
import { startControlPlane, type Harness } from '../server/testing/control-plane-harness.js';
import { Engine } from './engine.js';
import type { EngineEvent } from './engine-api.js';
import { FerryError } from './errors.js';
import { FakeTunnelManager } from './tunnel/manager.fake.js';

const SERVICE = 'http://control-plane.test';

let h: Harness;
beforeAll(async () => {
  h = await startControlPlane('sqlite');
  await h.addHealthyNode('asia-east', 0.2);
  await h.addHealthyNode('global', 0.3);
});
afterAll(async () => h?.close());

let dir: string;
let tunnels: FakeTunnelManager;
let engine: Engine;
let resets = 0;
const newEngine = () =>
  new Engine({
    stateDir: dir,
    fetch: injectFetch(h.plane.app),
    resetConnections: () => (resets += 1),
    tunnels,
    ferryKeys: new FakeDataPlane(),
    deviceName: () => 'test laptop',
  });

beforeEach(async () => {
  dir = path.join(mkdtempSync(path.join(tmpdir(), 'ferry-engine-')), 'state');
  tunnels = new FakeTunnelManager();
  resets = 0;
  engine = newEngine();
  await engine.start();
});
afterEach(async () => {
  await engine.shutdown();
  rmSync(path.dirname(dir), { recursive: true, force: true });
});

async function refused(p: Promise<unknown>): Promise<FerryError | ApiError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  if (e instanceof FerryError || e instanceof ApiError) return e;
  throw new Error(`expected a refusal, got ${String(e)}`);
}

async function signedIn(): Promise<string> {
  await engine.init({ endpoint: `${SERVICE}/api/v1` });
  const session = await engine.createAccount({});
  return session.account_number;
}

describe('the engine', () => {
  it('says what is missing before it can connect', async () => {
    expect(engine.status()).toMatchObject({
      status: 'disconnected',
      signed_in: false,
      service_configured: false,
    });
    expect((await refused(engine.connect({}))).code).toBe('service-not-configured');
    const init = await engine.init({ endpoint: `${SERVICE}/v1/`, protocol: 'ferry' });
    expect(init).toMatchObject({
      changed: ['service', 'protocol'],
      effect: 'saved',
      config: { service: SERVICE, protocol: 'ferry' },
    });
    expect((await refused(engine.connect({}))).code).toBe('not-signed-in');
    expect(engine.status().status).toBe('disconnected');
    expect(tunnels.open()).toEqual([]);
  });

  it('creates an account, signs in as a new device with keys made here, and keeps it', async () => {
    const number = await signedIn();
    expect(number).toMatch(/^\d{16}$/);
    const { device } = await engine.account();
    const keys = await engine.keys.publicKeys();
    expect(device).toMatchObject({ name: 'test laptop', wireguard_public_key: keys.wireguard });
    // A restarted host is still signed in.
    await engine.shutdown();
    engine = newEngine();
    await engine.start();
    expect(engine.status().signed_in).toBe(true);
    expect((await engine.listDevices()).devices.map((d) => d.id)).toEqual([device.id]);
  });

  it('connects with the spec’s body once the tunnel carries traffic, telling the cipher in effect', async () => {
    await signedIn();
    tunnels.latencyMs = 23.4;
    const events: EngineEvent[] = [];
    engine.subscribe((e) => events.push(e));
    const answer = await engine.connect({
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
    const plan = tunnels.plans[0]!;
    expect(plan.privateKey).toBe(await engine.keys.privateKey('wireguard'));
    expect(plan.routes).toEqual({ kind: 'all' });
    expect(events.map((e) => (e.type === 'status' ? e.status.status : e.type))).toEqual([
      'connecting',
      'connected',
      'notice',
    ]);
    expect(engine.status()).toMatchObject({ status: 'connected', region: answer.region });
    // The control plane's status shows the client's own measurement.
    const token = await engine.sessions.token();
    await expect
      .poll(async () => (await h.client(token).status()).latency, { timeout: 5_000 })
      .toBe('23ms');
  });

  it('follows the tunnel’s latency, loss and recovery', async () => {
    await signedIn();
    await engine.connect({ region: 'asia-east' });
    tunnels.last().emit({ type: 'latency', ms: 4.26 });
    expect(engine.status().latency).toBe('4.3ms');
    tunnels.last().emit({ type: 'lost', reason: 'handshake' });
    expect(engine.status()).toMatchObject({ status: 'reconnecting', latency: null });
    tunnels.last().emit({ type: 'restored' });
    expect(engine.status()).toMatchObject({ status: 'connected', region: 'asia-east' });
  });

  it('reconnects a live tunnel when a setting that needs a new session changes', async () => {
    await signedIn();
    await engine.connect({ region: 'asia-east' });
    const change = await engine.setConfigKey('protocol', 'Ferry');
    expect(change).toMatchObject({ changed: ['protocol'], effect: 'reconnected' });
    expect(engine.status()).toMatchObject({ status: 'connected', protocol: 'ferry' });
    expect(tunnels.plans.map((p: { answer: { protocol: string } }) => p.answer.protocol)).toEqual([
      'wireguard',
      'ferry',
    ]);
    // The old tunnel went before the new one came; the connect's own region stayed.
    expect(tunnels.open()).toEqual([tunnels.plans[1]!.interfaceName]);
    expect(tunnels.plans[1]!.answer.region).toBe('asia-east');
    const cipher = await engine.patchConfig({ encryption: 'AES-256-GCM' });
    expect(cipher.effect).toBe('reconnected');
    expect(engine.status().cipher).toBe('AES-256-GCM');
    const ui = await engine.setConfigKey('ui', 'graphical');
    expect(ui.effect).toBe('saved');
    expect(tunnels.plans).toHaveLength(3);
  });

  it('uses the Ferry TCP transport when obfuscation is on', async () => {
    await signedIn();
    await engine.patchConfig({ obfuscation: 'on' });
    const answer = await engine.connect({ protocol: 'ferry' });
    expect(answer.transport).toBe('tcp');
    expect(tunnels.plans[0]!.transport).toBe('tcp');
  });

  it('fails closed and leaves nothing when the tunnel does not come up', async () => {
    await signedIn();
    tunnels.failNext = new FerryError('tunnel-failed', 'no handshake within 10 s');
    const e = await refused(engine.connect({}));
    expect(e.code).toBe('tunnel-failed');
    expect(engine.status()).toMatchObject({
      status: 'error',
      error: { code: 'tunnel-failed' },
      latency: null,
      node: null,
    });
    expect(tunnels.open()).toEqual([]);
    // The control plane's session ended too.
    const token = await engine.sessions.token();
    expect((await h.client(token).status()).status).toBe('disconnected');
    // A new connect leaves the error.
    await engine.connect({});
    expect(engine.status()).toMatchObject({ status: 'connected', error: null });
  });

  it('passes the control plane’s refusals on with their code', async () => {
    await signedIn();
    const e = await refused(engine.connect({ region: 'eu-west' }));
    expect(e).toBeInstanceOf(ApiError);
    expect(e.code).toBe('region-not-in-plan');
    expect(engine.status()).toMatchObject({
      status: 'error',
      error: { code: 'region-not-in-plan' },
    });
    expect(tunnels.open()).toEqual([]);
  });

  it('refuses a node that runs on this machine (a full tunnel to it would loop)', async () => {
    await engine.shutdown();
    engine = new Engine({
      stateDir: dir,
      fetch: injectFetch(h.plane.app),
      tunnels,
      ferryKeys: new FakeDataPlane(),
      isThisMachine: async (host) => host === '192.0.2.10',
    });
    await engine.start();
    await signedIn();
    const e = await refused(engine.connect({}));
    expect(e.code).toBe('node-is-local');
    expect(e.message).toMatch(/npm run demo/);
    expect(tunnels.plans).toEqual([]);
    expect(engine.status().status).toBe('error');
  });

  it('refuses a mode that disagrees with the usage', async () => {
    await signedIn();
    const e = await refused(engine.connect({ usage: 'streaming', mode: 'secure' }));
    expect(e.code).toBe('config-invalid');
    expect(engine.status().status).toBe('disconnected');
  });

  it('lets a newer connect supersede one under way', async () => {
    await signedIn();
    const gate = tunnels.holdNext();
    const first = engine.connect({ region: 'asia-east' });
    await tunnels.waitForPending();
    const second = engine.connect({ region: 'global' });
    gate();
    expect((await refused(first)).code).toBe('superseded');
    expect((await second).region).toBe('global');
    expect(tunnels.open()).toEqual([engine.status().interface]);
  });

  it('disconnects, removing the tunnel and ending the session', async () => {
    await signedIn();
    await engine.connect({});
    // Pooled connections from before the tunnel go when it comes and when it goes.
    expect(resets).toBe(1);
    const status = await engine.disconnect();
    expect(resets).toBe(2);
    expect(status).toMatchObject({ status: 'disconnected', node: null, latency: null });
    expect(tunnels.open()).toEqual([]);
    const token = await engine.sessions.token();
    expect((await h.client(token).status()).status).toBe('disconnected');
    expect((await engine.disconnect()).status).toBe('disconnected');
  });

  it('turns a region rule into the area and strategy, refusing unknown areas', async () => {
    await signedIn();
    const bad = await refused(engine.addRegionRule({ area: 'mars', strategy: 'least-load' }));
    expect(bad.code).toBe('config-invalid');
    expect((bad as FerryError).errors?.[0]?.allowed).toContain('asia');
    await engine.addRegionRule({ area: 'asia', strategy: 'least-load', name: 'work' });
    const answer = await engine.connect({ region: 'work' });
    expect(answer.region).toBe('asia-east');
    expect(answer.routing.strategy).toContain('least-load');
    expect((await engine.listRegions()).rules).toEqual([
      { name: 'work', area: 'asia', strategy: 'least-load' },
    ]);
    await engine.removeRegionRule('work');
    expect((await engine.listRegions()).rules).toEqual([]);
  });

  it('signs out: disconnects, revokes the device and forgets it', async () => {
    const number = await signedIn();
    const other = await h.signIn(number, { name: 'phone' });
    await engine.connect({});
    const { device } = await engine.account();
    expect(await engine.logout()).toEqual({ signed_in: false });
    expect(engine.status()).toMatchObject({ status: 'disconnected', signed_in: false });
    expect(tunnels.open()).toEqual([]);
    const left = (await h.client(other.token).listDevices()).devices.map((d) => d.id);
    expect(left).not.toContain(device.id);
    expect((await refused(engine.account())).code).toBe('not-signed-in');
    // Signing in again makes a new device with new keys.
    const before = await engine.keys.publicKeys();
    await engine.login({ account_number: number });
    expect((await engine.keys.publicKeys()).wireguard).not.toBe(before.wireguard);
  });

  it('disconnects on shutdown', async () => {
    await signedIn();
    await engine.connect({});
    await engine.shutdown();
    expect(engine.status().status).toBe('disconnected');
    expect(tunnels.open()).toEqual([]);
    expect((await refused(engine.connect({}).catch((e: unknown) => Promise.reject(e)))).code).toBe(
      'superseded',
    );
  });
});
