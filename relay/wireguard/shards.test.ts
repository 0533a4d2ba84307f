// The relay's WireGuard interfaces and peer table on platform/os's fakes: each shard's
// wireguard-go started and configured (key, port, addresses or routes, MTU, up) and known to the
// firewall before it takes peers; a feed's peers held by the devices as UAPI reports them, and
// taken off again; a wireguard-go that cannot start leaves nothing behind; close stops them all.
import { describe, expect, it } from 'vitest';

import type { Peer, PeersResponse } from '../../contracts/index.js';
import { uapiKeyToHex } from '../../platform/os/uapi-text.js';
import { createFakeRelayOs } from '../os.fake.js';
import { PeerTable } from './peer-table.js';
import { WireGuardShards } from './shards.js';

const key = (n: number) => Buffer.alloc(32, n).toString('base64');
const RELAY_KEY = key(200);

function peer(id: number, ipv4: string, op: Peer['op'] = 'upsert'): Peer {
  return {
    device_id: `dev_${id}`,
    op,
    wireguard_public_key: key(id),
    tunnel_ipv4: ipv4,
    tunnel_ipv6: `fd66:6572:7279::${id}`,
    bandwidth_limit_mbps: null,
  };
}
const feed = (peers: Peer[], version = 1): PeersResponse => ({ version, snapshot: false, peers });

function setup() {
  const os = createFakeRelayOs();
  const learned: string[] = [];
  const exits: string[] = [];
  const shards = new WireGuardShards({
    os,
    baseName: 'wg0',
    basePort: 51820,
    privateKey: RELAY_KEY,
    mtu: 1420,
    onInterface: async (name) => {
      learned.push(name);
    },
    onExit: (name) => exits.push(name),
  });
  const table = new PeerTable(async (k) => (await shards.get(k)).uapi, {
    setLimit: async () => undefined,
  });
  return { os, shards, table, learned, exits };
}

describe('the relay’s WireGuard shards', () => {
  it('start shard 0 with the gateway addresses, the relay’s key and the base port', async () => {
    const { os, shards, learned } = setup();
    await shards.get(0);
    expect(learned).toEqual(['wg0']);
    expect(await os.links.get('wg0')).toEqual({
      name: 'wg0',
      kind: 'tun',
      mtu: 1420,
      up: true,
      addresses: ['10.64.0.1/16', 'fd66:6572:7279::1/112'],
    });
    const device = os.wireguard.device('wg0');
    expect(device.privateKey).toBe(uapiKeyToHex(RELAY_KEY));
    expect(device.listenPort).toBe(51820);
    expect(await os.routes.list('main', 4)).toEqual([]);
  });

  it('apply a feed through the devices’ UAPI: each peer on its shard, removals taken off', async () => {
    const { os, shards, table, learned } = setup();
    await table.apply(feed([peer(1, '10.64.0.2'), peer(2, '10.65.0.9'), peer(3, '10.64.0.3')]));
    // Shard 1 routes its own blocks through its interface, on the next port.
    expect(learned.sort()).toEqual(['wg0', 'wg0s1']);
    expect(os.wireguard.device('wg0s1').listenPort).toBe(51821);
    expect(await os.routes.list('main', 4)).toEqual([
      expect.objectContaining({ destination: '10.65.0.0/16', dev: 'wg0s1' }),
    ]);
    expect(await os.routes.list('main', 6)).toEqual([
      expect.objectContaining({ destination: 'fd66:6572:7279::1:0/112', dev: 'wg0s1' }),
    ]);

    const status = await shards.status();
    expect(status.listenPort).toBe(51820);
    const held = Object.fromEntries(status.peers.map((p) => [p.publicKey, p.allowedIps]));
    expect(held).toEqual({
      [key(1)]: ['10.64.0.2/32', 'fd66:6572:7279::1/128'],
      [key(3)]: ['10.64.0.3/32', 'fd66:6572:7279::3/128'],
      [key(2)]: ['10.65.0.9/32', 'fd66:6572:7279::2/128'],
    });

    await table.apply(feed([peer(1, '10.64.0.2', 'remove'), peer(2, '10.65.0.9', 'remove')], 2));
    expect((await shards.status()).peers.map((p) => p.publicKey)).toEqual([key(3)]);
  });

  it('leave nothing behind when wireguard-go cannot start, and start it on the next try', async () => {
    const { os, shards } = setup();
    os.wireguard.failNextStart = 'wireguard-go is not installed (Debian: the wireguard-go package)';
    await expect(shards.get(0)).rejects.toThrow(
      'wireguard-go exited: wireguard-go is not installed (Debian: the wireguard-go package)',
    );
    expect(await os.links.get('wg0')).toBeNull();
    await shards.get(0);
    expect(os.wireguard.device('wg0').running).toBe(true);
  });

  it('refuse to start an interface whose UAPI socket another wireguard-go serves', async () => {
    const { os, shards } = setup();
    os.wireguard.start('wg0');
    await expect(shards.get(0)).rejects.toThrow('another WireGuard interface named wg0');
  });

  it('stop every wireguard-go on close, their links and sockets with them', async () => {
    const { os, shards, table, exits } = setup();
    await table.apply(feed([peer(1, '10.64.0.2'), peer(2, '10.65.0.9')]));
    await shards.close();
    expect(await os.wireguard.processes()).toEqual([]);
    expect(await os.wireguard.sockets()).toEqual([]);
    expect((await os.links.list()).map((l) => l.name)).toEqual(['eth0']);
    expect(exits.sort()).toEqual(['wg0', 'wg0s1']);
  });
});
