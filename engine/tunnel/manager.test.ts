// The tunnel manager on fakes (OS, data plane, wireguard-go): up() resolves only after a measured
// round trip, fails with a code that says why, and whatever way a tunnel ends, nothing of it stays.
import { beforeEach, describe, expect, it, vi } from 'vitest';

import type { ClientTunnelOptions, TunnelEventListener } from '../../native/tunnel-types.js';
import { FakeDataPlane, type FakeTunnel } from '../../native/tunnel.fake.js';
import { FerryError } from '../errors.js';
import { createFakeOs, type FakeOs } from '../os/effects.fake.js';
import { createTunnelManager } from './manager.js';
import { FERRY_FWMARK, FERRY_ROUTE_TABLE } from './names.js';
import { testPlan, TEST_KEYS } from './plans.fake.js';
import { fullTunnelRules } from './routing.js';
import type { TunnelEvent, TunnelManager } from './tunnel.js';
import { FakeWireguardSystem, hex } from '../../platform/os/wireguard-go.fake.js';

/** The fake data plane, plus the TUN link the native client makes (addressed and up). */
class LinkingDataPlane extends FakeDataPlane {
  constructor(private readonly os: FakeOs) {
    super();
  }

  override startClient(options: ClientTunnelOptions, onEvent: TunnelEventListener) {
    const t = super.startClient(options, onEvent) as FakeTunnel;
    const links = this.os.links;
    links.addExisting(options.interfaceName, 'tun', options.mtu ?? 1420);
    links.links.get(options.interfaceName)!.up = true;
    const close = t.close.bind(t);
    t.close = () => {
      if (links.links.delete(options.interfaceName))
        for (const f of links.onDown) f(options.interfaceName);
      close();
    };
    return t;
  }
}

let os: FakeOs;
let dataPlane: LinkingDataPlane;
let wg: FakeWireguardSystem;
let manager: TunnelManager;

const make = (timing: { upTimeoutMs?: number } = {}) =>
  createTunnelManager({
    os,
    dataPlane,
    wireguard: wg,
    run: wg.run,
    timing: { upTimeoutMs: 1_000, pollMs: 5, probeIntervalMs: 10, ...timing },
  });

beforeEach(() => {
  os = createFakeOs();
  os.links.addExisting('eth0');
  os.links.links.get('eth0')!.up = true;
  dataPlane = new LinkingDataPlane(os);
  wg = new FakeWireguardSystem(os.links);
  manager = make();
});

/** Everything but eth0 and the kernel's own: what a tunnel may leave behind. */
function leftovers() {
  return {
    links: [...os.links.links.keys()].filter((n) => n !== 'eth0'),
    routes: [...os.routes.routes.values()],
    rules: os.routes.rules,
    sockets: [...wg.socketFiles],
    processes: [...wg.devices.values()].filter((d) => d.running).map((d) => d.interfaceName),
  };
}
const NOTHING = { links: [], routes: [], rules: [], sockets: [], processes: [] };

async function codeOf(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof FerryError)) throw new Error(`expected a FerryError, got ${String(e)}`);
  return e.code;
}

const ferryTunnel = async () => {
  await vi.waitFor(() => expect(dataPlane.tunnels.length).toBeGreaterThan(0));
  return dataPlane.tunnels[dataPlane.tunnels.length - 1]!;
};

describe('a Ferry tunnel', () => {
  it('comes up after the handshake and a round trip, as a full tunnel, and closes without a trace', async () => {
    const plan = testPlan('ferry', { transport: 'tcp' });
    const up = manager.up(plan);
    const t = await ferryTunnel();
    expect(t.options).toMatchObject({ fwmark: FERRY_FWMARK, transport: 'tcp' });
    t.emit({ type: 'state', state: 'connected' });
    t.emit({ type: 'rtt', rttMs: 12.5 });
    const tunnel = await up;
    expect(tunnel).toMatchObject({ interfaceName: plan.interfaceName, protocol: 'ferry' });
    expect(tunnel.latencyMs()).toBe(12.5);
    expect([...os.routes.routes.values()]).toMatchObject([
      { destination: '0.0.0.0/0', dev: plan.interfaceName, table: FERRY_ROUTE_TABLE },
    ]);
    expect(os.routes.rules).toEqual(fullTunnelRules());

    await tunnel.close();
    expect(t.closed).toBe(true);
    expect(leftovers()).toEqual(NOTHING);
    await tunnel.close();
  });

  it('waits for the round trip that follows the handshake', async () => {
    const up = manager.up(testPlan('ferry'));
    const t = await ferryTunnel();
    let settled = false;
    void up.then(() => (settled = true));
    t.emit({ type: 'state', state: 'connected' });
    await new Promise((r) => setTimeout(r, 20));
    expect(settled).toBe(false);
    t.emit({ type: 'rtt', rttMs: 3 });
    expect((await up).latencyMs()).toBe(3);
  });

  it('reports latency, loss, recovery and rekeys; nothing after close', async () => {
    const up = manager.up(testPlan('ferry'));
    const t = await ferryTunnel();
    t.emit({ type: 'state', state: 'connected' });
    t.emit({ type: 'rtt', rttMs: 9 });
    const tunnel = await up;
    const events: TunnelEvent[] = [];
    tunnel.on((e) => events.push(e));
    t.emit({ type: 'rtt', rttMs: 11 });
    t.emit({ type: 'rekey', cipher: 'aes-256-gcm' });
    t.emit({ type: 'state', state: 'connecting' });
    t.emit({ type: 'state', state: 'connected' });
    t.emit({ type: 'state', state: 'failed' });
    await vi.waitFor(() => expect(events).toHaveLength(5));
    expect(events).toEqual([
      { type: 'latency', ms: 11 },
      { type: 'rekey', cipher: 'AES-256-GCM' },
      { type: 'lost', reason: 'the node stopped answering' },
      { type: 'restored' },
      { type: 'lost', reason: 'the Ferry data plane stopped' },
    ]);
    expect(tunnel.latencyMs()).toBe(11);
    await tunnel.close();
    expect(leftovers()).toEqual(NOTHING);
  });

  it('fails as node-unreachable when no handshake completes in time, leaving nothing', async () => {
    manager = make({ upTimeoutMs: 50 });
    expect(await codeOf(manager.up(testPlan('ferry')))).toBe('node-unreachable');
    expect((await ferryTunnel()).closed).toBe(true);
    expect(leftovers()).toEqual(NOTHING);
  });

  it('over TCP or TLS, says what the last connection ran into (the autopilot’s evidence)', async () => {
    manager = make({ upTimeoutMs: 200 });
    const up = manager.up(testPlan('ferry', { transport: 'tcp' })).catch((x: unknown) => x);
    const t = await ferryTunnel();
    t.attemptOutcome('reset');
    const e = await up;
    expect(e).toMatchObject({ code: 'node-unreachable', extra: { stream_outcome: 'reset' } });
    expect((e as FerryError).message).toBe(
      'the node did not answer within 0.2 s (the connection was reset after its first packet)',
    );
    expect(leftovers()).toEqual(NOTHING);
  });

  it('gives up after the plan’s own time limit (obfuscation auto tries UDP briefly)', async () => {
    manager = make({ upTimeoutMs: 60_000 });
    const started = Date.now();
    const e = await manager.up(testPlan('ferry', { timeoutMs: 50 })).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'node-unreachable' });
    expect((e as FerryError).message).toContain('0.05 s');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(leftovers()).toEqual(NOTHING);
  });

  it('fails as tunnel-timeout when the node answered but nothing crossed', async () => {
    manager = make({ upTimeoutMs: 50 });
    const up = manager.up(testPlan('ferry'));
    (await ferryTunnel()).emit({ type: 'state', state: 'connected' });
    expect(await codeOf(up)).toBe('tunnel-timeout');
    expect(leftovers()).toEqual(NOTHING);
  });

  it('fails as tunnel-failed when the data plane stops while connecting', async () => {
    const up = manager.up(testPlan('ferry'));
    (await ferryTunnel()).emit({ type: 'state', state: 'failed' });
    expect(await codeOf(up)).toBe('tunnel-failed');
    expect(leftovers()).toEqual(NOTHING);
  });

  it('is cancelled by its signal, leaving nothing', async () => {
    const ac = new AbortController();
    const up = manager.up(testPlan('ferry'), ac.signal);
    await ferryTunnel();
    ac.abort();
    expect(await codeOf(up)).toBe('cancelled');
    expect(leftovers()).toEqual(NOTHING);
  });

  it('takes back its routes when the route cannot be added', async () => {
    os.routes.failNext('replace');
    expect(await codeOf(manager.up(testPlan('ferry')))).toBe('os-command-failed');
    expect(leftovers()).toEqual(NOTHING);
  });
});

describe('a WireGuard tunnel', () => {
  const upWireguard = async (plan = testPlan('wireguard')) => manager.up(plan);

  it('configures wireguard-go over UAPI, routes it, and comes up on a ping through it', async () => {
    const plan = testPlan('wireguard');
    const tunnel = await upWireguard(plan);
    expect(tunnel.latencyMs()).toBe(1.5);
    const set = wg.device(plan.interfaceName).sets[0]!;
    expect(set).toContain(`private_key=${hex(TEST_KEYS.devicePrivate)}\n`);
    expect(set).toContain(`fwmark=${FERRY_FWMARK}\n`);
    expect(set).toContain(`public_key=${hex(TEST_KEYS.nodeWireguard)}\n`);
    expect(set).toContain('endpoint=192.0.2.10:51820\n');
    expect(set).toContain('persistent_keepalive_interval=25\n');
    expect(os.links.links.get(plan.interfaceName)).toMatchObject({
      up: true,
      mtu: 1420,
      addresses: ['10.64.0.7/32'],
    });
    expect(wg.pings[0]).toEqual([
      '-n',
      '-c',
      '1',
      '-W',
      '1',
      '-I',
      plan.interfaceName,
      '10.64.0.1',
    ]);
    expect(os.routes.rules).toEqual(fullTunnelRules());

    await tunnel.close();
    expect(leftovers()).toEqual(NOTHING);
  });

  it('resolves a node’s host name, since UAPI takes addresses only', async () => {
    const plan = testPlan('wireguard');
    plan.answer.node.endpoint_host = 'relay.example';
    manager = createTunnelManager({
      os,
      dataPlane,
      wireguard: wg,
      run: wg.run,
      resolveHost: async (h) =>
        h === 'relay.example' ? '192.0.2.44' : Promise.reject(new Error()),
      timing: { pollMs: 5 },
    });
    const tunnel = await manager.up(plan);
    expect(wg.device(plan.interfaceName).sets[0]).toContain('endpoint=192.0.2.44:51820\n');
    await tunnel.close();
  });

  it('is cancelled promptly while the node’s name resolves, starting nothing', async () => {
    const plan = testPlan('wireguard');
    plan.answer.node.endpoint_host = 'relay.example';
    manager = createTunnelManager({
      os,
      dataPlane,
      wireguard: wg,
      run: wg.run,
      resolveHost: () => new Promise(() => {}), // a resolver that never answers
    });
    const ac = new AbortController();
    const up = manager.up(plan, ac.signal);
    setTimeout(() => ac.abort(), 20);
    expect(await codeOf(up)).toBe('cancelled');
    expect(wg.devices.size).toBe(0);
    expect(leftovers()).toEqual(NOTHING);
  });

  it('probes for latency, and reports loss and recovery', async () => {
    const tunnel = await upWireguard();
    const events: TunnelEvent[] = [];
    tunnel.on((e) => events.push(e));
    await vi.waitFor(() => expect(events.some((e) => e.type === 'latency')).toBe(true));
    wg.nodeAnswers = false;
    await vi.waitFor(() => expect(events.some((e) => e.type === 'lost')).toBe(true));
    wg.nodeAnswers = true;
    await vi.waitFor(() => expect(events.at(-1)?.type === 'latency').toBe(true));
    const kinds = events.map((e) => e.type).filter((k, i, a) => k !== a[i - 1]);
    expect(kinds).toEqual(['latency', 'lost', 'restored', 'latency']);
    await tunnel.close();
    const after = events.length;
    await new Promise((r) => setTimeout(r, 30));
    expect(events).toHaveLength(after);
  });

  it('reports the loss when wireguard-go dies, and close still removes everything', async () => {
    const plan = testPlan('wireguard');
    const tunnel = await upWireguard(plan);
    const events: TunnelEvent[] = [];
    tunnel.on((e) => events.push(e));
    wg.crash(plan.interfaceName);
    await vi.waitFor(() =>
      expect(events).toContainEqual({ type: 'lost', reason: 'wireguard-go stopped' }),
    );
    await tunnel.close();
    expect(leftovers()).toEqual(NOTHING);
  });

  it('fails as node-unreachable when the node never answers, leaving nothing', async () => {
    wg.nodeAnswers = false;
    manager = make({ upTimeoutMs: 60 });
    expect(await codeOf(upWireguard())).toBe('node-unreachable');
    expect(leftovers()).toEqual(NOTHING);
  });

  it('fails as tunnel-failed when wireguard-go does not start', async () => {
    wg.failNextStart = 'wireguard-go is not installed (Debian: the wireguard-go package)';
    const e = await upWireguard().catch((x: unknown) => x as FerryError);
    expect(e).toMatchObject({ code: 'tunnel-failed' });
    expect((e as FerryError).message).toContain('not installed');
    expect(leftovers()).toEqual(NOTHING);
  });

  it('refuses a name another wireguard-go serves, and touches nothing of it', async () => {
    const plan = testPlan('wireguard');
    wg.start(plan.interfaceName); // e.g. in another namespace: /run/wireguard is shared
    os.links.links.delete(plan.interfaceName);
    expect(await codeOf(upWireguard(plan))).toBe('tunnel-failed');
    expect(wg.device(plan.interfaceName).running).toBe(true);
    expect([...wg.socketFiles]).toEqual([plan.interfaceName]);
  });

  it('routes only the service’s destinations for an `only` tunnel, with no rules', async () => {
    const plan = testPlan('wireguard', { routes: { kind: 'only', cidrs: ['198.51.100.0/24'] } });
    const tunnel = await upWireguard(plan);
    // In main, and beside a full tunnel's default route (which no rule reads without one).
    expect([...os.routes.routes.values()]).toMatchObject([
      { destination: '198.51.100.0/24', dev: plan.interfaceName, table: 'main' },
      { destination: '198.51.100.0/24', dev: plan.interfaceName, table: FERRY_ROUTE_TABLE },
    ]);
    expect(os.routes.rules).toEqual([]);
    await tunnel.close();
    expect(leftovers()).toEqual(NOTHING);
  });
});

describe('the manager', () => {
  it('refuses an interface that exists, without touching it', async () => {
    const plan = testPlan('ferry');
    os.links.addExisting(plan.interfaceName);
    expect(await codeOf(manager.up(plan))).toBe('tunnel-failed');
    expect(os.links.links.has(plan.interfaceName)).toBe(true);
    expect(dataPlane.tunnels).toHaveLength(0);
  });

  it('refuses names that are not ours (cleanup could not find them) and TCP for WireGuard', async () => {
    await expect(manager.up(testPlan('ferry', { interfaceName: 'wg0' }))).rejects.toThrow(
      TypeError,
    );
    await expect(manager.up(testPlan('wireguard', { transport: 'tcp' }))).rejects.toThrow(
      TypeError,
    );
  });

  it('keeps the shared rules while another full tunnel is up', async () => {
    const a = await manager.up(testPlan('wireguard', { interfaceName: 'fytaaaaaaaaa' }));
    const b = await manager.up(testPlan('wireguard', { interfaceName: 'fytbbbbbbbbb' }));
    // The newest full tunnel carries the default route.
    expect([...os.routes.routes.values()]).toMatchObject([{ dev: 'fytbbbbbbbbb' }]);
    await a.close();
    expect(os.routes.rules).toEqual(fullTunnelRules());
    expect([...os.routes.routes.values()]).toMatchObject([{ dev: 'fytbbbbbbbbb' }]);
    await b.close();
    expect(leftovers()).toEqual(NOTHING);
  });

  it('cleans up after a crash, sparing the tunnels it holds', async () => {
    // What a killed engine left: a running wireguard-go with its routes and rules, a dead one's socket.
    await make().up(testPlan('wireguard', { interfaceName: 'fytoldaaaaaaa' }));
    wg.start('fytdeadbbbbbb');
    wg.crash('fytdeadbbbbbb');
    const plan = testPlan('ferry', {
      interfaceName: 'fytnewcccccc',
      routes: { kind: 'only', cidrs: ['198.51.100.0/24'] },
    });
    const up = manager.up(plan);
    const t = await ferryTunnel();
    t.emit({ type: 'state', state: 'connected' });
    t.emit({ type: 'rtt', rttMs: 2 });
    const mine = await up;

    await manager.cleanupLeftovers();
    expect(leftovers()).toEqual({
      ...NOTHING,
      links: ['fytnewcccccc'],
      routes: [
        expect.objectContaining({ destination: '198.51.100.0/24', dev: 'fytnewcccccc' }),
        expect.objectContaining({
          destination: '198.51.100.0/24',
          dev: 'fytnewcccccc',
          table: FERRY_ROUTE_TABLE,
        }),
      ],
    });
    await mine.close();
    expect(leftovers()).toEqual(NOTHING);
  });
});
