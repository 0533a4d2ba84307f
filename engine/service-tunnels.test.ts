// Service tunnels through the engine, against the real control plane (in process, SQLite) with
// a scripted tunnel manager in place of the OS: their own keys, registration, session and
// routes; beside the main tunnel and independent of it; failing closed; stopped on their own,
// at sign-out and at shutdown.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { injectFetch } from '../server/testing/inject-fetch.js';
import { newPublicKey, startControlPlane } from '../server/testing/control-plane-harness.js';
import { FerryError } from './errors.js';
import { EngineFixture } from './testing/engine-fixture.js';
import { engineRefusal } from './testing/refusal.js';
import { TUNNEL_KEYS_FILE } from './tunnel-keys.js';

const DNS: Record<string, string[]> = {
  'wiki.corp.example': ['198.51.100.7'],
  'git.corp.example': ['198.51.100.9', '198.51.100.7'],
};

const fx = new EngineFixture({
  prefix: 'ferry-svc-tunnels-',
  startControlPlane: () => startControlPlane('sqlite'),
  fetchOf: (h) => injectFetch(h.plane.app),
  engine: {
    resolveIpv4: async (domain) => {
      const a = DNS[domain];
      if (!a) throw new Error('not found');
      return a;
    },
  },
});
beforeAll(() => fx.startControlPlane());
afterAll(() => fx.closeControlPlane());
beforeEach(async () => {
  await fx.start();
  await fx.signIn();
  await fx.engine.addService({
    name: 'office',
    cidrs: ['10.20.0.0/16'],
    domains: ['wiki.corp.example', 'git.corp.example'],
  });
});
afterEach(() => fx.stop());

/** The control plane's view of this device's fx.tunnels. */
async function registered() {
  const token = (await fx.engine.sessions.token())!;
  const { device } = await fx.engine.account();
  return (await fx.controlPlane.client(token).listTunnels({ params: { id: device.id } })).tunnels;
}

describe('service tunnels', () => {
  it('start on their own keys, registration, session, interface and routes', async () => {
    const started = await fx.engine.startTunnel({
      service: 'office',
      tag: 'work',
      region: 'global',
    });
    const plan = fx.tunnels.plans[0]!;
    expect(plan.routes).toEqual({
      kind: 'only',
      cidrs: ['10.20.0.0/16', '198.51.100.7/32', '198.51.100.9/32'],
    });
    expect(plan.interfaceName).toMatch(/^fytwork[0-9a-f]{6}$/);
    const [tunnel] = await registered();
    const { device } = await fx.engine.account();
    // The tunnel's own addresses and keys, not the device's.
    expect(tunnel).toMatchObject({ tag: 'work', device_id: device.id });
    expect(plan.answer.tunnel.ipv4).toBe(tunnel!.tunnel_ipv4);
    expect(tunnel!.tunnel_ipv4).not.toBe(device.tunnel_ipv4);
    expect(plan.privateKey).not.toBe(await fx.engine.keys.privateKey('wireguard'));
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
    expect(await fx.engine.listTunnels()).toEqual({ tunnels: [started] });
    // The keys are this host's alone.
    const keys = path.join(fx.stateDir, TUNNEL_KEYS_FILE);
    expect(((await stat(keys)).mode & 0o777).toString(8)).toBe('600');
    expect(JSON.parse(await readFile(keys, 'utf8')).tunnels).toHaveProperty('work');
    // Nothing it resolved is shown anywhere but in the routes.
    expect(JSON.stringify(await fx.engine.listTunnels())).not.toMatch(/198\.51/);
  });

  it('run beside the main tunnel, and outlive its disconnect', async () => {
    const main = await fx.engine.connect({ region: 'asia-east' });
    const work = await fx.engine.startTunnel({ service: 'office', tag: 'work' });
    expect(fx.tunnels.open()).toEqual([main.interface, work.interface]);
    expect(fx.tunnels.plans.map((p) => p.routes.kind)).toEqual(['all', 'only']);
    // Two sessions on the control plane: the device's own is the main tunnel's.
    const token = (await fx.engine.sessions.token())!;
    const status = await fx.controlPlane.client(token).status();
    expect(status.session_id).toBe(fx.tunnels.plans[0]!.answer.session_id);
    expect(fx.tunnels.plans[1]!.answer.session_id).not.toBe(status.session_id);

    await fx.engine.disconnect();
    expect(fx.tunnels.open()).toEqual([work.interface]);
    expect((await fx.engine.listTunnels()).tunnels).toHaveLength(1);
    // A lost node shows, and its return.
    fx.tunnels.tunnel(work.interface).lose();
    expect((await fx.engine.listTunnels()).tunnels[0]).toMatchObject({
      status: 'lost',
      latency: null,
    });
    fx.tunnels.tunnel(work.interface).measure(31.2);
    expect((await fx.engine.listTunnels()).tunnels[0]).toMatchObject({
      status: 'connected',
      latency: '31ms',
    });
  });

  it('stop: the interface goes, the control plane forgets the tunnel, the keys are erased', async () => {
    const work = await fx.engine.startTunnel({ service: 'office', tag: 'work' });
    expect(await fx.engine.stopTunnel('work')).toEqual({
      tag: 'work',
      service: 'office',
      unregistered: true,
    });
    expect(fx.tunnels.open()).toEqual([]);
    expect(fx.tunnels.tunnel.bind(fx.tunnels, work.interface)).toThrow();
    expect(await registered()).toEqual([]);
    expect(
      JSON.parse(await readFile(path.join(fx.stateDir, TUNNEL_KEYS_FILE), 'utf8')).tunnels,
    ).toEqual({});
    const e = await engineRefusal(fx.engine.stopTunnel('work'));
    expect(e.code).toBe('tunnel-not-found');
  });

  it('refuses a tag or a service already running, and a service that does not exist', async () => {
    await fx.engine.addService({ name: 'lab', cidrs: ['10.30.0.0/16'], domains: [] });
    await fx.engine.startTunnel({ service: 'office', tag: 'work' });
    expect((await engineRefusal(fx.engine.startTunnel({ service: 'lab', tag: 'work' }))).code).toBe(
      'tunnel-exists',
    );
    expect(
      (await engineRefusal(fx.engine.startTunnel({ service: 'office', tag: 'other' }))).code,
    ).toBe('tunnel-exists');
    const unknown = await engineRefusal(fx.engine.startTunnel({ service: 'nowhere', tag: 'x' }));
    expect(unknown.code).toBe('service-not-found');
    expect(unknown.message).toMatch(/office/);
    await fx.engine.startTunnel({ service: 'lab', tag: 'lab' });
    expect((await registered()).map((t) => t.tag)).toEqual(['lab', 'work']);
  });

  it('fail closed: nothing stays here or on the control plane when a start fails', async () => {
    fx.tunnels.failNext = new FerryError('node-unreachable', 'the node did not answer');
    expect(
      (await engineRefusal(fx.engine.startTunnel({ service: 'office', tag: 'work' }))).code,
    ).toBe('node-unreachable');
    expect(fx.tunnels.open()).toEqual([]);
    expect(await registered()).toEqual([]);
    expect((await fx.engine.listTunnels()).tunnels).toEqual([]);

    const refusal = await engineRefusal(
      fx.engine.startTunnel({ service: 'office', tag: 'work', region: 'eu-west' }),
    );
    expect(refusal.code).toBe('region-not-in-plan');
    expect(await registered()).toEqual([]);

    // A domain that does not resolve: not even registered.
    await fx.engine.addService({
      name: 'broken',
      cidrs: [],
      domains: ['wiki.corp.example', 'gone.corp.example'],
    });
    const unresolved = await engineRefusal(fx.engine.startTunnel({ service: 'broken', tag: 'b' }));
    expect(unresolved.code).toBe('destinations-unresolved');
    expect(unresolved.message).not.toMatch(/corp\.example/);
    expect(fx.tunnels.plans).toHaveLength(1);
    expect(await registered()).toEqual([]);
    // And then it works.
    await fx.engine.startTunnel({ service: 'office', tag: 'work' });
    expect((await registered()).map((t) => t.tag)).toEqual(['work']);
  });

  it('takes its own registration over after a crash, and replaces a leftover of other keys', async () => {
    await fx.engine.startTunnel({ service: 'office', tag: 'work' });
    const before = await registered();
    // A crash: the engine goes without a word to the control plane; a new one starts.
    await fx.restartAfterCrash({ resolveIpv4: async (d) => DNS[d] ?? [] });
    await fx.engine.startTunnel({ service: 'office', tag: 'work' });
    expect(await registered()).toEqual(before);

    // A registration of a tag whose keys this host does not have (they were lost).
    const token = (await fx.engine.sessions.token())!;
    const { device } = await fx.engine.account();
    await fx.controlPlane.client(token).createTunnel({
      params: { id: device.id },
      body: { tag: 'home', wireguard_public_key: newPublicKey(), ferry_public_key: newPublicKey() },
    });
    await fx.engine.addService({ name: 'nas', cidrs: ['192.168.77.0/24'], domains: [] });
    await fx.engine.startTunnel({ service: 'nas', tag: 'home' });
    const home = (await registered()).find((t) => t.tag === 'home')!;
    expect(fx.tunnels.last().plan.answer.tunnel.ipv4).toBe(home.tunnel_ipv4);
  });

  it('stop at sign-out, going with the device on the control plane', async () => {
    const { account_number } = await fx.engine.account();
    const other = await fx.controlPlane.signIn(account_number, { name: 'phone' });
    const { device } = await fx.engine.account();
    await fx.engine.startTunnel({ service: 'office', tag: 'work' });
    await fx.engine.logout();
    expect(fx.tunnels.open()).toEqual([]);
    expect((await fx.engine.listTunnels()).tunnels).toEqual([]);
    const gone = await engineRefusal(
      fx.controlPlane.client(other.token).listTunnels({ params: { id: device.id } }),
    );
    expect(gone.code).toBe('not-found');
    expect(
      JSON.parse(await readFile(path.join(fx.stateDir, TUNNEL_KEYS_FILE), 'utf8')).tunnels,
    ).toEqual({});
  });

  it('stop at shutdown, removed from the control plane', async () => {
    const token = (await fx.engine.sessions.token())!;
    const { device } = await fx.engine.account();
    await fx.engine.startTunnel({ service: 'office', tag: 'work' });
    await fx.engine.shutdown();
    expect(fx.tunnels.open()).toEqual([]);
    expect(
      (await fx.controlPlane.client(token).listTunnels({ params: { id: device.id } })).tunnels,
    ).toEqual([]);
    expect((await engineRefusal(fx.engine.startTunnel({ service: 'office', tag: 'w' }))).code).toBe(
      'superseded',
    );
  });
});
