// Service tunnels through the engine, against the real control plane (in process, SQLite) with
// a scripted tunnel manager in place of the OS: their own keys, registration, session and
// routes; beside the main tunnel and independent of it; failing closed; stopped on their own,
// at sign-out and at shutdown.
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../contracts/index.js';
import { FakeDataPlane } from '../native/tunnel.fake.js';
import { injectFetch } from '../server/testing/inject-fetch.js';
import {
  newPublicKey,
  startControlPlane,
  type Harness,
} from '../server/testing/control-plane-harness.js';
import { Engine } from './engine.js';
import { FerryError } from './errors.js';
import { TUNNEL_KEYS_FILE } from './tunnel-keys.js';
import { FakeTunnelManager } from './tunnel/manager.fake.js';

const SERVICE = 'http://control-plane.test';
const DNS: Record<string, string[]> = {
  'wiki.corp.example': ['198.51.100.7'],
  'git.corp.example': ['198.51.100.9', '198.51.100.7'],
};

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
const lookups: string[] = [];
const newEngine = () =>
  new Engine({
    stateDir: dir,
    fetch: injectFetch(h.plane.app),
    tunnels,
    ferryKeys: new FakeDataPlane(),
    resolveIpv4: async (domain) => {
      lookups.push(domain);
      const a = DNS[domain];
      if (!a) throw new Error('not found');
      return a;
    },
  });

beforeEach(async () => {
  dir = path.join(mkdtempSync(path.join(tmpdir(), 'ferry-svc-tunnels-')), 'state');
  tunnels = new FakeTunnelManager();
  lookups.length = 0;
  engine = newEngine();
  await engine.start();
  await engine.init({ endpoint: `${SERVICE}/api/v1` });
  await engine.createAccount({});
  await engine.addService({
    name: 'office',
    cidrs: ['10.20.0.0/16'],
    domains: ['wiki.corp.example', 'git.corp.example'],
  });
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

/** The control plane's view of this device's tunnels. */
async function registered() {
  const token = (await engine.sessions.token())!;
  const { device } = await engine.account();
  return (await h.client(token).listTunnels({ params: { id: device.id } })).tunnels;
}

describe('service tunnels', () => {
  it('start on their own keys, registration, session, interface and routes', async () => {
    const started = await engine.startTunnel({ service: 'office', tag: 'work', region: 'global' });
    const plan = tunnels.plans[0]!;
    expect(plan.routes).toEqual({
      kind: 'only',
      cidrs: ['10.20.0.0/16', '198.51.100.7/32', '198.51.100.9/32'],
    });
    expect(plan.interfaceName).toMatch(/^fytwork[0-9a-f]{6}$/);
    const [tunnel] = await registered();
    const { device } = await engine.account();
    // The tunnel's own addresses and keys, not the device's.
    expect(tunnel).toMatchObject({ tag: 'work', device_id: device.id });
    expect(plan.answer.tunnel.ipv4).toBe(tunnel!.tunnel_ipv4);
    expect(tunnel!.tunnel_ipv4).not.toBe(device.tunnel_ipv4);
    expect(plan.privateKey).not.toBe(await engine.keys.privateKey('wireguard'));
    expect(tunnel!.wireguard_public_key).not.toBe(device.wireguard_public_key);
    expect(started).toEqual({
      tag: 'work',
      service: 'office',
      status: 'connected',
      region: 'global',
      node: { id: plan.answer.node.id, region: 'global', endpoint: '192.0.2.10:51820' },
      protocol: 'wireguard',
      cipher: 'ChaCha20-Poly1305',
      transport: 'udp',
      latency: '20ms',
      interface: plan.interfaceName,
      tunnel_ipv4: tunnel!.tunnel_ipv4,
      destinations: 3,
    });
    expect(await engine.listTunnels()).toEqual({ tunnels: [started] });
    // The keys are this host's alone.
    const keys = path.join(dir, TUNNEL_KEYS_FILE);
    expect(((await stat(keys)).mode & 0o777).toString(8)).toBe('600');
    expect(JSON.parse(await readFile(keys, 'utf8')).tunnels).toHaveProperty('work');
    // Nothing it resolved is shown anywhere but in the routes.
    expect(JSON.stringify(await engine.listTunnels())).not.toMatch(/198\.51/);
  });

  it('run beside the main tunnel, and outlive its disconnect', async () => {
    const main = await engine.connect({ region: 'asia-east' });
    const work = await engine.startTunnel({ service: 'office', tag: 'work' });
    expect(tunnels.open()).toEqual([main.interface, work.interface]);
    expect(tunnels.plans.map((p) => p.routes.kind)).toEqual(['all', 'only']);
    // Two sessions on the control plane: the device's own is the main tunnel's.
    const token = (await engine.sessions.token())!;
    const status = await h.client(token).status();
    expect(status.session_id).toBe(tunnels.plans[0]!.answer.session_id);
    expect(tunnels.plans[1]!.answer.session_id).not.toBe(status.session_id);

    await engine.disconnect();
    expect(tunnels.open()).toEqual([work.interface]);
    expect((await engine.listTunnels()).tunnels).toHaveLength(1);
    // A lost node shows, and its return.
    tunnels.tunnel(work.interface).lose();
    expect((await engine.listTunnels()).tunnels[0]).toMatchObject({
      status: 'lost',
      latency: null,
    });
    tunnels.tunnel(work.interface).measure(31.2);
    expect((await engine.listTunnels()).tunnels[0]).toMatchObject({
      status: 'connected',
      latency: '31ms',
    });
  });

  it('stop: the interface goes, the control plane forgets the tunnel, the keys are erased', async () => {
    const work = await engine.startTunnel({ service: 'office', tag: 'work' });
    expect(await engine.stopTunnel('work')).toEqual({
      tag: 'work',
      service: 'office',
      unregistered: true,
    });
    expect(tunnels.open()).toEqual([]);
    expect(tunnels.tunnel.bind(tunnels, work.interface)).toThrow();
    expect(await registered()).toEqual([]);
    expect(JSON.parse(await readFile(path.join(dir, TUNNEL_KEYS_FILE), 'utf8')).tunnels).toEqual(
      {},
    );
    const e = await refused(engine.stopTunnel('work'));
    expect(e.code).toBe('tunnel-not-found');
  });

  it('refuses a tag or a service already running, and a service that does not exist', async () => {
    await engine.addService({ name: 'lab', cidrs: ['10.30.0.0/16'], domains: [] });
    await engine.startTunnel({ service: 'office', tag: 'work' });
    expect((await refused(engine.startTunnel({ service: 'lab', tag: 'work' }))).code).toBe(
      'tunnel-exists',
    );
    expect((await refused(engine.startTunnel({ service: 'office', tag: 'other' }))).code).toBe(
      'tunnel-exists',
    );
    const unknown = await refused(engine.startTunnel({ service: 'nowhere', tag: 'x' }));
    expect(unknown.code).toBe('service-not-found');
    expect(unknown.message).toMatch(/office/);
    await engine.startTunnel({ service: 'lab', tag: 'lab' });
    expect((await registered()).map((t) => t.tag)).toEqual(['lab', 'work']);
  });

  it('fail closed: nothing stays here or on the control plane when a start fails', async () => {
    tunnels.failNext = new FerryError('node-unreachable', 'the node did not answer');
    expect((await refused(engine.startTunnel({ service: 'office', tag: 'work' }))).code).toBe(
      'node-unreachable',
    );
    expect(tunnels.open()).toEqual([]);
    expect(await registered()).toEqual([]);
    expect((await engine.listTunnels()).tunnels).toEqual([]);

    const refusal = await refused(
      engine.startTunnel({ service: 'office', tag: 'work', region: 'eu-west' }),
    );
    expect(refusal.code).toBe('region-not-in-plan');
    expect(await registered()).toEqual([]);

    // A domain that does not resolve: not even registered.
    await engine.addService({
      name: 'broken',
      cidrs: [],
      domains: ['wiki.corp.example', 'gone.corp.example'],
    });
    const unresolved = await refused(engine.startTunnel({ service: 'broken', tag: 'b' }));
    expect(unresolved.code).toBe('destinations-unresolved');
    expect(unresolved.message).not.toMatch(/corp\.example/);
    expect(tunnels.plans).toHaveLength(1);
    expect(await registered()).toEqual([]);
    // And then it works.
    await engine.startTunnel({ service: 'office', tag: 'work' });
    expect((await registered()).map((t) => t.tag)).toEqual(['work']);
  });

  it('takes its own registration over after a crash, and replaces a leftover of other keys', async () => {
    await engine.startTunnel({ service: 'office', tag: 'work' });
    const before = await registered();
    // A crash: the engine goes without a word to the control plane; a new one starts.
    tunnels = new FakeTunnelManager();
    engine = new Engine({
      stateDir: dir,
      fetch: injectFetch(h.plane.app),
      tunnels,
      ferryKeys: new FakeDataPlane(),
      resolveIpv4: async (d) => DNS[d] ?? [],
    });
    await engine.start();
    await engine.startTunnel({ service: 'office', tag: 'work' });
    expect(await registered()).toEqual(before);

    // A registration of a tag whose keys this host does not have (they were lost).
    const token = (await engine.sessions.token())!;
    const { device } = await engine.account();
    await h.client(token).createTunnel({
      params: { id: device.id },
      body: { tag: 'home', wireguard_public_key: newPublicKey(), ferry_public_key: newPublicKey() },
    });
    await engine.addService({ name: 'nas', cidrs: ['192.168.77.0/24'], domains: [] });
    await engine.startTunnel({ service: 'nas', tag: 'home' });
    const home = (await registered()).find((t) => t.tag === 'home')!;
    expect(tunnels.last().plan.answer.tunnel.ipv4).toBe(home.tunnel_ipv4);
  });

  it('stop at sign-out, going with the device on the control plane', async () => {
    const { account_number } = await engine.account();
    const other = await h.signIn(account_number, { name: 'phone' });
    const { device } = await engine.account();
    await engine.startTunnel({ service: 'office', tag: 'work' });
    await engine.logout();
    expect(tunnels.open()).toEqual([]);
    expect((await engine.listTunnels()).tunnels).toEqual([]);
    const gone = await refused(h.client(other.token).listTunnels({ params: { id: device.id } }));
    expect(gone.code).toBe('not-found');
    expect(JSON.parse(await readFile(path.join(dir, TUNNEL_KEYS_FILE), 'utf8')).tunnels).toEqual(
      {},
    );
  });

  it('stop at shutdown, removed from the control plane', async () => {
    const token = (await engine.sessions.token())!;
    const { device } = await engine.account();
    await engine.startTunnel({ service: 'office', tag: 'work' });
    await engine.shutdown();
    expect(tunnels.open()).toEqual([]);
    expect((await h.client(token).listTunnels({ params: { id: device.id } })).tunnels).toEqual([]);
    expect((await refused(engine.startTunnel({ service: 'office', tag: 'w' }))).code).toBe(
      'superseded',
    );
  });
});
