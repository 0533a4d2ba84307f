// What every implementation of the OS seams must do, as vitest cases: the unit tests run them
// on the fakes (fakes.test.ts), the namespace test (e2e/netns/engine-os.test.ts) on the Linux
// implementations, so the fakes the engine and the relay are tested on behave as the real
// thing does.
import { expect, it } from 'vitest';

import { FerryError } from '../../contracts/engine-errors.js';
import { UapiError, uapiKeyFromHex } from './uapi-text.js';
import type { Firewall, NftObject, NftTable } from './nftables.js';
import type { Links } from './links.js';
import type { PolicyRule, Routes } from './routes.js';
import { UapiClient } from './uapi.js';
import type { WireguardProcess, WireguardSystem } from './wireguard-go.js';

/** Link names the contract uses; the environment must not have them. */
export const CONTRACT_LINKS = ['fycontract0', 'fycontract1'] as const;
export const CONTRACT_TABLE = 7301;
export const CONTRACT_NFT: NftTable = { family: 'inet', name: 'ferry_contract' };

/** What `p` rejected with, which must be a `kind`. */
async function rejection<E extends Error>(
  p: Promise<unknown>,
  kind: abstract new (...args: never[]) => E,
): Promise<E> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(kind);
  return e as E;
}

async function osFailure(p: Promise<unknown>): Promise<FerryError> {
  const e = await rejection(p, FerryError);
  expect(e.code).toBe('os-command-failed');
  return e;
}

/** The addresses we gave (link-local ones the kernel adds are not ours). */
const ours = (addresses: string[]) => addresses.filter((a) => !a.startsWith('fe80:')).sort();

export function linksContract(links: () => Links): void {
  const [a] = CONTRACT_LINKS;

  it('creates a link once, down, and refuses a second of the same name', async () => {
    await links().create(a, 'tun');
    expect(await links().get(a)).toMatchObject({ name: a, kind: 'tun', up: false });
    await osFailure(links().create(a, 'tun'));
    await links().delete(a);
  });

  it('sets addresses of both families idempotently, and removes them', async () => {
    await links().create(a, 'tun');
    await links().setAddress(a, '10.64.0.2/32');
    await links().setAddress(a, '10.64.0.2/32');
    await links().setAddress(a, 'fd66:6572:7279::2/128');
    await links().setAddress(a, '10.99.0.1');
    expect(ours((await links().get(a))!.addresses)).toEqual([
      '10.64.0.2/32',
      '10.99.0.1/32',
      'fd66:6572:7279::2/128',
    ]);
    await links().removeAddress(a, '10.99.0.1/32');
    await links().removeAddress(a, '10.99.0.1/32');
    await links().removeAddress(a, 'fd66:6572:7279::9/128');
    expect(ours((await links().get(a))!.addresses)).toEqual([
      '10.64.0.2/32',
      'fd66:6572:7279::2/128',
    ]);
    await links().delete(a);
  });

  it('sets the MTU and brings the link up and down', async () => {
    await links().create(a, 'tun');
    await links().setMtu(a, 1380);
    await links().setUp(a, true);
    expect(await links().get(a)).toMatchObject({ mtu: 1380, up: true });
    expect((await links().list()).map((l) => l.name)).toContain(a);
    await links().setUp(a, false);
    expect((await links().get(a))!.up).toBe(false);
    await links().delete(a);
  });

  it('deletes idempotently, and fails to change a link that is not there', async () => {
    await links().create(a, 'tun');
    await links().delete(a);
    await links().delete(a);
    expect(await links().get(a)).toBeNull();
    await osFailure(links().setUp(a, true));
    await osFailure(links().setMtu(a, 1400));
    await osFailure(links().setAddress(a, '10.64.0.2/32'));
  });

  it('refuses arguments that could read as options, before running anything', async () => {
    await expect(links().create('-x', 'tun')).rejects.toThrow(TypeError);
    await expect(links().setAddress(a, 'dev lo')).rejects.toThrow(TypeError);
    await expect(links().setMtu(a, 100)).rejects.toThrow(TypeError);
    await expect(links().create('a-name-too-long-for-linux', 'tun')).rejects.toThrow(TypeError);
  });
}

export function routesContract(links: () => Links, routes: () => Routes): void {
  const [a, b] = CONTRACT_LINKS;
  const table = CONTRACT_TABLE;

  async function up(name: string, address: string) {
    await links().create(name, 'tun');
    await links().setAddress(name, address);
    await links().setUp(name, true);
  }

  async function down() {
    for (const name of CONTRACT_LINKS) await links().delete(name);
  }

  it('adds routes to a table of its own, lists them, and refuses the same twice', async () => {
    await up(a, '10.64.0.2/32');
    try {
      await routes().add({ destination: '0.0.0.0/0', dev: a, table });
      await routes().add({ destination: '198.51.100.0/24', dev: a, table, metric: 7 });
      await routes().add({ destination: '203.0.113.9', type: 'blackhole', table });
      await routes().add({ destination: '192.0.2.0/24', type: 'throw', table });
      await routes().add({ destination: '::/0', dev: a, table });
      const v4 = await routes().list(table, 4);
      expect(v4).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ destination: '0.0.0.0/0', dev: a, type: 'unicast', table }),
          expect.objectContaining({ destination: '198.51.100.0/24', dev: a, metric: 7 }),
          expect.objectContaining({ destination: '203.0.113.9/32', type: 'blackhole' }),
          expect.objectContaining({ destination: '192.0.2.0/24', type: 'throw' }),
        ]),
      );
      expect(v4).toHaveLength(4);
      expect(await routes().list(table, 6)).toEqual([
        expect.objectContaining({ destination: '::/0', dev: a, table }),
      ]);
      await osFailure(routes().add({ destination: '0.0.0.0/0', dev: a, table }));
    } finally {
      await down();
    }
    // A link's routes go with it; the others stay.
    const left = await routes().list(table, 4);
    expect(left.map((r) => r.destination).sort()).toEqual(['192.0.2.0/24', '203.0.113.9/32']);
    expect(await routes().list(table, 6)).toEqual([]);
    for (const r of left) await routes().delete(r);
    expect(await routes().list(table, 4)).toEqual([]);
    // A table that never held a route (or lost its last one) is an empty one.
    expect(await routes().list(table + 1, 4)).toEqual([]);
    expect(await routes().list(table + 1, 6)).toEqual([]);
  });

  it('needs the device of a route to exist and be up, and drops its routes when it goes down', async () => {
    await osFailure(routes().add({ destination: '198.51.100.0/24', dev: a, table }));
    await links().create(a, 'tun');
    try {
      await osFailure(routes().add({ destination: '198.51.100.0/24', dev: a, table }));
      await links().setUp(a, true);
      await routes().add({ destination: '198.51.100.0/24', dev: a, table });
      await links().setUp(a, false);
      expect(await routes().list(table, 4)).toEqual([]);
    } finally {
      await down();
    }
  });

  it('replaces a route in place, and deletes idempotently', async () => {
    await up(a, '10.64.0.2/32');
    await up(b, '10.64.0.3/32');
    try {
      await routes().replace({ destination: '198.51.100.0/24', dev: a, table });
      await routes().replace({ destination: '198.51.100.0/24', dev: b, table });
      expect(await routes().list(table, 4)).toEqual([
        expect.objectContaining({ destination: '198.51.100.0/24', dev: b }),
      ]);
      await routes().delete({ destination: '198.51.100.0/24', table });
      await routes().delete({ destination: '198.51.100.0/24', table });
      expect(await routes().list(table, 4)).toEqual([]);
    } finally {
      await down();
    }
  });

  it('adds and deletes the rules of a full tunnel (not fwmark, to, suppress_prefixlength)', async () => {
    const rules: PolicyRule[] = [
      { family: 4, priority: 7301, table, fwmark: 0xca6c, notFwmark: true },
      { family: 4, priority: 7300, table: 'main', suppressPrefixLength: 0 },
      { family: 4, priority: 7300, to: '10.0.0.0/8', table: 'main', suppressPrefixLength: 0 },
      { family: 6, priority: 7301, table, fwmark: 0x10, fwmask: 0xff },
    ];
    for (const r of rules) await routes().addRule(r);
    try {
      const mine = async (family: 4 | 6) =>
        (await routes().listRules(family)).filter(
          (r) => r.priority === 7300 || r.priority === 7301,
        );
      expect(await mine(4)).toEqual([
        { family: 4, priority: 7300, table: 'main', suppressPrefixLength: 0 },
        { family: 4, priority: 7300, to: '10.0.0.0/8', table: 'main', suppressPrefixLength: 0 },
        { family: 4, priority: 7301, table, fwmark: 0xca6c, notFwmark: true },
      ]);
      expect(await mine(6)).toEqual([
        { family: 6, priority: 7301, table, fwmark: 0x10, fwmask: 0xff },
      ]);
      await osFailure(routes().addRule(rules[0]!));
    } finally {
      for (const r of rules) {
        await routes().deleteRule(r);
        await routes().deleteRule(r);
      }
    }
    expect((await routes().listRules(4)).filter((r) => r.priority === 7301)).toEqual([]);
  });

  it('refuses bad routes and rules before running anything', async () => {
    await expect(routes().add({ destination: '10.0.0.0/33', dev: a })).rejects.toThrow(TypeError);
    await expect(routes().add({ destination: 'default', dev: a })).rejects.toThrow(TypeError);
    await expect(
      routes().add({ destination: '10.0.0.0/8', via: 'fd00::1', table }),
    ).rejects.toThrow(TypeError);
    await expect(
      routes().add({ destination: '10.0.0.0/8', type: 'blackhole', dev: a, table }),
    ).rejects.toThrow(TypeError);
    await expect(routes().addRule({ family: 4, priority: 0, table })).rejects.toThrow(TypeError);
  });
}

const killSwitchLike = (allowed: string): NftObject[] => [
  {
    chain: { name: 'output', type: 'filter', hook: 'output', prio: 0, policy: 'drop' },
  },
  { set: { name: 'allowed4', type: 'ipv4_addr', flags: ['interval'] } },
  {
    rule: {
      chain: 'output',
      expr: [
        { match: { op: '==', left: { meta: { key: 'oifname' } }, right: allowed } },
        { accept: null },
      ],
    },
  },
];

export function firewallContract(firewall: () => Firewall): void {
  it('applies a table, replaces it whole, and removes it idempotently', async () => {
    expect(await firewall().exists(CONTRACT_NFT)).toBe(false);
    await firewall().apply(CONTRACT_NFT, killSwitchLike('lo'));
    expect(await firewall().exists(CONTRACT_NFT)).toBe(true);
    await firewall().apply(CONTRACT_NFT, killSwitchLike('fycontract0'));
    expect(await firewall().exists(CONTRACT_NFT)).toBe(true);
    await firewall().remove(CONTRACT_NFT);
    await firewall().remove(CONTRACT_NFT);
    expect(await firewall().exists(CONTRACT_NFT)).toBe(false);
  });

  it('shows what a table holds: chains, sets with their element counts, each chain’s last rule', async () => {
    expect(await firewall().inspect(CONTRACT_NFT)).toBeNull();
    await firewall().apply(CONTRACT_NFT, [
      ...killSwitchLike('lo'),
      { set: { name: 'resolvers4', type: 'ipv4_addr', elem: ['192.0.2.53', '198.51.100.53'] } },
      { rule: { chain: 'output', expr: [{ counter: null }, { drop: null }] } },
    ]);
    const view = (await firewall().inspect(CONTRACT_NFT))!;
    expect(view.chains).toEqual([
      { name: 'output', hook: 'output', policy: 'drop', rules: 2, lastRule: expect.any(Array) },
    ]);
    expect(view.chains[0]!.lastRule!.at(-1)).toEqual({ drop: null });
    expect([...view.sets].sort((x, y) => x.name.localeCompare(y.name))).toEqual([
      { name: 'allowed4', elements: 0 },
      { name: 'resolvers4', elements: 2 },
    ]);
    await firewall().remove(CONTRACT_NFT);
    expect(await firewall().inspect(CONTRACT_NFT)).toBeNull();
  });

  it('patches a table in place: elements added and deleted, chains and rules added', async () => {
    await firewall().apply(CONTRACT_NFT, [
      ...killSwitchLike('lo'),
      { set: { name: 'tunnels', type: 'ifname' } },
      { element: { name: 'allowed4', elem: [{ prefix: { addr: '10.0.0.0', len: 8 } }] } },
    ]);
    try {
      await firewall().patch(CONTRACT_NFT, [
        { add: { element: { name: 'tunnels', elem: ['fycontract0', 'fycontract1'] } } },
        { add: { set: { name: 'limited4_5', type: 'ipv4_addr' } } },
        { add: { element: { name: 'limited4_5', elem: ['10.64.0.2', '10.64.0.3'] } } },
        { add: { chain: { name: 'closed' } } },
        { add: { rule: { chain: 'closed', expr: [{ drop: null }] } } },
      ]);
      await firewall().patch(CONTRACT_NFT, [
        { delete: { element: { name: 'tunnels', elem: ['fycontract1'] } } },
        { delete: { element: { name: 'limited4_5', elem: ['10.64.0.2'] } } },
        // A chain that exists is added again without harm.
        { add: { chain: { name: 'closed' } } },
      ]);
      const view = (await firewall().inspect(CONTRACT_NFT))!;
      const sets = Object.fromEntries(view.sets.map((x) => [x.name, x.elements]));
      expect(sets).toEqual({ allowed4: 1, tunnels: 1, limited4_5: 1 });
      expect(view.chains.find((c) => c.name === 'closed')).toMatchObject({
        hook: null,
        rules: 1,
        lastRule: [{ drop: null }],
      });
      // Refused as a whole: the first change is not made either.
      await osFailure(
        firewall().patch(CONTRACT_NFT, [
          { add: { element: { name: 'tunnels', elem: ['fycontract1'] } } },
          { delete: { element: { name: 'limited4_5', elem: ['10.64.0.9'] } } },
        ]),
      );
      await osFailure(
        firewall().patch(CONTRACT_NFT, [{ add: { element: { name: 'nosuchset', elem: ['x'] } } }]),
      );
      const after = (await firewall().inspect(CONTRACT_NFT))!;
      expect(after.sets.find((x) => x.name === 'tunnels')!.elements).toBe(1);
      // A whole apply after a patch holds the body given, nothing of the patches.
      await firewall().apply(CONTRACT_NFT, killSwitchLike('lo'));
      expect((await firewall().inspect(CONTRACT_NFT))!.sets).toEqual([
        { name: 'allowed4', elements: 0 },
      ]);
    } finally {
      await firewall().remove(CONTRACT_NFT);
    }
    await osFailure(
      firewall().patch(CONTRACT_NFT, [{ add: { element: { name: 'tunnels', elem: ['x'] } } }]),
    );
  });

  it('keeps a body inside its table', async () => {
    await expect(firewall().apply(CONTRACT_NFT, [{ table: { name: 'other' } }])).rejects.toThrow(
      TypeError,
    );
    await expect(firewall().apply({ family: 'inet', name: 'bad name' }, [])).rejects.toThrow(
      TypeError,
    );
    await expect(
      firewall().patch(CONTRACT_NFT, [{ add: { table: { name: 'other' } } }]),
    ).rejects.toThrow(TypeError);
    expect(await firewall().exists(CONTRACT_NFT)).toBe(false);
  });
}

export { killSwitchLike };

/** A key of 16 times the two bytes of `n`, in base64 (any 32 bytes make a WireGuard key). */
const key = (n: number) => uapiKeyFromHex(n.toString(16).padStart(4, '0').repeat(16));

const uapiFailure = (p: Promise<unknown>) => rejection(p, UapiError);

/**
 * wireguard-go as both the engine and the relay use it. `name` is an interface name no other
 * test uses (UAPI sockets live in one /run for every network namespace).
 */
export function wireguardContract(system: () => WireguardSystem, name: string): void {
  /** Starts wireguard-go and waits until it serves its socket. */
  async function started(): Promise<WireguardProcess> {
    const proc = system().start(name);
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (proc.hasExited()) throw new Error(`wireguard-go stopped: ${proc.output()}`);
      const served = await system()
        .exchange(name, 'get=1\n\n', 1_000)
        .then(
          () => true,
          () => false,
        );
      if (served) return proc;
      if (Date.now() > deadline) throw new Error('wireguard-go never served its socket');
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  it('serves its UAPI socket from start to stop, and then leaves none', async () => {
    await expect(uapiFailure(system().exchange(name, 'get=1\n\n', 1_000))).resolves.toMatchObject({
      errno: 'ENOENT',
    });
    const proc = await started();
    try {
      expect(await system().sockets()).toContain(name);
      expect(await new UapiClient(system(), name).get()).toMatchObject({ peers: [] });
    } finally {
      await proc.stop();
    }
    expect(proc.hasExited()).toBe(true);
    expect(await system().sockets()).not.toContain(name);
    expect((await uapiFailure(system().exchange(name, 'get=1\n\n', 1_000))).errno).toBe('ENOENT');
    await system().removeSocket(name);
  });

  it('keeps what set says: its port and mark, peers upserted, changed and removed', async () => {
    const proc = await started();
    const uapi = new UapiClient(system(), name, 5_000);
    try {
      await uapi.set(
        { privateKey: key(9), listenPort: 51999, fwmark: 0xca6c, replacePeers: true },
        [
          {
            kind: 'upsert',
            peer: {
              publicKey: key(1),
              endpoint: '192.0.2.1:51820',
              allowedIps: ['10.64.0.2/32', 'fd66:6572:7279::2/128'],
              persistentKeepaliveSeconds: 25,
            },
          },
          { kind: 'upsert', peer: { publicKey: key(2), allowedIps: ['10.64.0.3/32'] } },
        ],
      );
      const first = await uapi.get();
      expect(first).toMatchObject({ listenPort: 51999, fwmark: 0xca6c });
      const byKey = (peers: typeof first.peers) =>
        Object.fromEntries(peers.map((p) => [p.publicKey, p]));
      expect(byKey(first.peers)).toEqual({
        [key(1)]: expect.objectContaining({
          endpoint: '192.0.2.1:51820',
          allowedIps: ['10.64.0.2/32', 'fd66:6572:7279::2/128'],
          persistentKeepaliveSeconds: 25,
          rxBytes: 0,
        }),
        [key(2)]: expect.objectContaining({ endpoint: null, allowedIps: ['10.64.0.3/32'] }),
      });
      await uapi.set({}, [
        { kind: 'remove', publicKey: key(1) },
        { kind: 'upsert', peer: { publicKey: key(2), allowedIps: ['10.64.0.4/32'] } },
        { kind: 'upsert', peer: { publicKey: key(3), allowedIps: ['10.64.0.5/32'] } },
      ]);
      const second = byKey((await uapi.get()).peers);
      expect(Object.keys(second).sort()).toEqual([key(2), key(3)].sort());
      expect(second[key(2)]!.allowedIps).toEqual(['10.64.0.4/32']);
      // Every peer not named goes.
      await uapi.set({ replacePeers: true }, [
        { kind: 'upsert', peer: { publicKey: key(4), allowedIps: ['10.64.0.6/32'] } },
      ]);
      expect((await uapi.get()).peers.map((p) => p.publicKey)).toEqual([key(4)]);
    } finally {
      await proc.stop();
    }
  });

  it('refuses a request it cannot read with a UAPI errno', async () => {
    const proc = await started();
    try {
      const e = await uapiFailure(system().exchange(name, 'set=1\nbogus_key=1\n\n', 5_000));
      expect(typeof e.errno === 'number' && e.errno !== 0).toBe(true);
      // It still serves.
      expect((await new UapiClient(system(), name).get()).peers).toEqual([]);
    } finally {
      await proc.stop();
    }
  });
}
