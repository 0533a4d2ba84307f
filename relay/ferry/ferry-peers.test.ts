// The Ferry peer set against the fake data plane: only changes are sent, revocations apply even
// when the rest of an update fails, failures are retried, counted and reported degraded, a data
// plane that cannot remove peers is stopped, refused peers are kept out, and replies are routed
// shard by shard.
import { createHash } from 'node:crypto';
import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeDataPlane, type FakeTunnel } from '../../native/tunnel.fake.js';
import { RelayHealth } from '../health.js';
import type { PeerEntry } from '../wireguard/peer-table.js';
import { FerryPeers } from './ferry-peers.js';

const key = (n: number) => createHash('sha256').update(String(n)).digest('base64');

function entry(n: number, extra: Partial<PeerEntry> = {}): PeerEntry {
  return {
    deviceId: `dev_${n}`,
    wireguardPublicKey: key(n),
    ferryPublicKey: key(100 + n),
    ipv4: `10.64.${n >> 8}.${n & 255}`,
    ipv6: `fd66:6572:7279::${n.toString(16)}`,
    bandwidthLimitMbps: 20,
    ...extra,
  };
}

function setup(routeShard: (shard: number) => Promise<void> = async () => {}) {
  const plane = new FakeDataPlane();
  const tunnel = plane.startServer(
    {
      interfaceName: 'fyt0f',
      address: '10.64.0.1/32',
      privateKey: plane.generatePrivateKey(),
      listenHost: '0.0.0.0',
      listenPort: 51900,
      peers: [],
    },
    () => {},
  ) as FakeTunnel;
  const logs: { msg: string; plane?: string; reason?: string; failures?: number }[] = [];
  const log = pino(
    { level: 'info' },
    { write: (line: string) => void logs.push(JSON.parse(line)) },
  );
  const health = new RelayHealth(log);
  const routed: number[] = [];
  const peers = new FerryPeers(tunnel, {
    health,
    routeShard: async (k) => {
      await routeShard(k);
      routed.push(k);
    },
    retryMinMs: 1_000,
    retryMaxMs: 4_000,
  });
  /** A feed answer as the peer table hands it over: revocations, then admission. */
  const apply = async (entries: [string, PeerEntry | null][], snapshot = false) => {
    peers.revoke(new Map(entries), snapshot);
    await peers.admit(entries.flatMap(([, e]) => (e ? [e] : [])));
  };
  const held = () => [...tunnel.peers.keys()].sort();
  return { tunnel, peers, health, logs, routed, apply, held };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('FerryPeers', () => {
  it('sends only what changed, never the whole set', async () => {
    const { tunnel, apply, held } = setup();
    const all = Array.from({ length: 1_000 }, (_, i) => entry(i + 2));
    await apply(
      all.map((e) => [e.deviceId, e]),
      true,
    );
    expect(tunnel.peers.size).toBe(1_000);
    const before = tunnel.peerUpdates.length;

    await apply([
      ['dev_2', null],
      ['dev_3', entry(3, { ferryPublicKey: key(99_999) })],
      ['dev_5000', entry(5000)],
      ['dev_4', entry(4)],
    ]);
    const sent = tunnel.peerUpdates.slice(before);
    expect(sent.flatMap((u) => u.remove).sort()).toEqual(['dev_2', 'dev_3']);
    expect(
      sent
        .flatMap((u) => u.upsert)
        .map((p) => p.id)
        .sort(),
    ).toEqual(['dev_3', 'dev_5000']);
    expect(tunnel.peers.get('dev_3')!.publicKey).toBe(key(99_999));
    expect(held()).toHaveLength(1_000);
  });

  it('drops a revoked device even when the rest of the update fails, says so, and retries', async () => {
    vi.useFakeTimers();
    const { tunnel, peers, health, logs, apply, held } = setup();
    await apply(
      [
        ['dev_2', entry(2)],
        ['dev_3', entry(3)],
      ],
      true,
    );
    // The update that carries the revocation fails: the device is gone all the same.
    tunnel.failNextUpdate = new Error('registry lock timed out');
    peers.revoke(new Map([['dev_2', null]]), false);
    expect(held()).toEqual(['dev_3']);
    expect(health.counters().peerUpdateFailures.ferry).toBe(1);
    expect(logs).toContainEqual(
      expect.objectContaining({ plane: 'ferry', reason: 'registry lock timed out', failures: 1 }),
    );

    // Letting a device in fails: the node says Ferry is degraded until a retry succeeds.
    tunnel.failNextUpdate = new Error('registry lock timed out');
    await peers.admit([entry(4)]);
    expect(held()).toEqual(['dev_3']);
    expect(health.degraded()).toEqual(['ferry']);
    expect(health.reasons('ferry')).toEqual(['registry lock timed out']);
    expect(health.counters().peerUpdateFailures.ferry).toBe(2);

    await vi.advanceTimersByTimeAsync(1_000);
    expect(held()).toEqual(['dev_3', 'dev_4']);
    expect(health.degraded()).toEqual([]);
  });

  it('stops the data plane when not even removals go through', async () => {
    const { tunnel, peers, health, apply } = setup();
    await apply([['dev_2', entry(2)]], true);
    const broken = () => {
      throw new Error('data plane thread gone');
    };
    tunnel.updatePeers = broken;

    await apply([['dev_2', null]]);
    expect(tunnel.closed).toBe(true);
    expect(peers.isStopped).toBe(true);
    expect(health.degraded()).toEqual(['ferry']);
    expect(health.reasons('ferry').join()).toMatch(/revoked peers could not be removed/);
    // Stopped for good: nothing recovers it but a restart.
    health.recovered('ferry', 'peer-updates');
    expect(health.degraded()).toEqual(['ferry']);
    expect(peers.stats()).toEqual([]);
  });

  it('keeps a refused peer out, reports it, and lets it in once the clash is gone', async () => {
    vi.useFakeTimers();
    const { tunnel, health, logs, apply, held } = setup();
    await apply([['dev_2', entry(2)]], true);
    // Another device claims dev_2's address before dev_2 has moved away.
    await apply([['dev_9', entry(9, { ipv4: '10.64.0.2' })]]);
    expect(held()).toEqual(['dev_2']);
    expect(health.counters().peersRefused.ferry).toBe(1);
    expect(health.degraded()).toEqual([]);
    expect(logs).toContainEqual(
      expect.objectContaining({ plane: 'ferry', reason: 'address in use by another peer' }),
    );

    await apply([['dev_2', null]]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(held()).toEqual(['dev_9']);
    expect(tunnel.peers.get('dev_9')!.address).toBe('10.64.0.2');
  });

  it('takes an old key away at once, even when the new one is never let in', async () => {
    const { tunnel, peers, apply } = setup();
    await apply([['dev_2', entry(2)]], true);
    peers.revoke(new Map([['dev_2', entry(2, { ferryPublicKey: key(77) })]]), false);
    expect(tunnel.peers.has('dev_2')).toBe(false);
    // A device without a Ferry key is not a Ferry peer.
    await apply([['dev_3', entry(3, { ferryPublicKey: null })]]);
    expect(tunnel.peers.has('dev_3')).toBe(false);
  });

  it('removes what a snapshot no longer holds', async () => {
    const { apply, held } = setup();
    await apply(
      [
        ['dev_2', entry(2)],
        ['dev_3', entry(3)],
      ],
      true,
    );
    await apply([['dev_3', entry(3)]], true);
    expect(held()).toEqual(['dev_3']);
  });

  it('routes replies shard by shard, and lets no peer in before its shard is routed', async () => {
    vi.useFakeTimers();
    let routeFails = true;
    const { health, routed, apply, held } = setup(async (k) => {
      if (k === 1 && routeFails) throw new Error('RTNETLINK answers: No buffer space');
    });
    await apply(
      [
        ['dev_2', entry(2)],
        ['dev_70000', entry(70000, { ipv4: '10.65.17.112' })],
      ],
      true,
    );
    expect(routed).toEqual([0]);
    expect(held()).toEqual(['dev_2']);
    expect(health.degraded()).toEqual(['ferry']);

    routeFails = false;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(routed).toEqual([0, 1]);
    expect(held()).toEqual(['dev_2', 'dev_70000']);
    expect(health.degraded()).toEqual([]);
  });

  it('stops when the data plane reports a dead thread', async () => {
    const { tunnel, peers, health, apply } = setup();
    await apply([['dev_2', entry(2)]], true);
    peers.dataPlaneFailed('tun read: Bad file descriptor');
    expect(tunnel.closed).toBe(true);
    expect(health.reasons('ferry')).toEqual(['tun read: Bad file descriptor']);
  });
});
