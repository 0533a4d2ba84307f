// The device token cache: served within its TTL, and dropped at once by revocations, plan changes
// and a bus that lost its link; never keeps what was read before an invalidation.
import { describe, expect, it } from 'vitest';
import { DeviceAuthCache } from './device-auth-cache.js';
import type { BusEvent, EventBus } from './event-bus.js';
import type { DeviceAuth } from './ports/devices.js';

/** A bus in one process (`instant`) or one whose events reach other instances later. */
class FakeBus implements EventBus {
  constructor(readonly instant: boolean) {}
  private readonly listeners = new Set<(e: BusEvent) => void>();
  async publish(e: BusEvent): Promise<void> {
    for (const l of this.listeners) l(e);
  }
  subscribe(l: (e: BusEvent) => void): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }
  async close(): Promise<void> {}
}

const alice: DeviceAuth = {
  deviceId: 'dev_a',
  accountId: 1,
  accountNumber: '1111222233334444',
  plan: 'basic',
  tunnelIpv4: '10.64.0.2',
  tunnelIpv6: 'fd00::2',
};
const bob: DeviceAuth = { ...alice, deviceId: 'dev_b', accountId: 2, tunnelIpv4: '10.64.0.3' };

/** A devices table in memory that counts its reads; `gate` holds reads back when set. */
function source(rows: Record<string, DeviceAuth>) {
  const s = {
    reads: 0,
    gate: undefined as Promise<void> | undefined,
    rows,
    async authByTokenHash(hash: string) {
      s.reads++;
      const row = s.rows[hash];
      if (s.gate) await s.gate;
      return row && { ...row };
    },
  };
  return s;
}

function setup(opts: { ttlMs?: number; maxEntries?: number; instant?: boolean } = {}) {
  const db = source({ ha: alice, hb: bob });
  const bus = new FakeBus(opts.instant ?? true);
  const clock = { t: 0 };
  const cache = new DeviceAuthCache(db, bus, {
    ttlMs: opts.ttlMs ?? 5_000,
    maxEntries: opts.maxEntries ?? 100,
    now: () => clock.t,
  });
  return { db, bus, clock, cache };
}

describe('DeviceAuthCache', () => {
  it('answers from memory within the TTL and asks again after it', async () => {
    const { db, clock, cache } = setup({ ttlMs: 5_000 });
    expect(await cache.authByTokenHash('ha')).toEqual(alice);
    clock.t = 4_999;
    expect(await cache.authByTokenHash('ha')).toEqual(alice);
    expect(db.reads).toBe(1);
    clock.t = 5_000;
    delete db.rows.ha; // revoked with no event at all: the TTL still ends it
    expect(await cache.authByTokenHash('ha')).toBeUndefined();
    expect(db.reads).toBe(2);
  });

  it('never keeps an unknown token', async () => {
    const { db, cache } = setup();
    expect(await cache.authByTokenHash('nope')).toBeUndefined();
    expect(await cache.authByTokenHash('nope')).toBeUndefined();
    expect(db.reads).toBe(2);
    expect(cache.size).toBe(0);
  });

  it('refuses a token at once when its device is revoked here', async () => {
    const { db, cache } = setup();
    await cache.authByTokenHash('ha');
    await cache.authByTokenHash('hb');
    delete db.rows.ha;
    cache.forgetDevice('dev_a');
    expect(await cache.authByTokenHash('ha')).toBeUndefined();
    expect(cache.wasRevoked('dev_a')).toBe(true);
    expect(cache.wasRevoked('dev_b')).toBe(false);
    // Other devices stay cached.
    const reads = db.reads;
    expect(await cache.authByTokenHash('hb')).toEqual(bob);
    expect(db.reads).toBe(reads);
  });

  it('refuses a token at once when another instance revokes it (bus event)', async () => {
    const { db, bus, cache } = setup();
    await cache.authByTokenHash('ha');
    delete db.rows.ha;
    await bus.publish({ kind: 'device', deviceId: 'dev_a', change: 'revoked' });
    expect(await cache.authByTokenHash('ha')).toBeUndefined();
    expect(cache.wasRevoked('dev_a')).toBe(true);
  });

  it('ignores status and key events', async () => {
    const { db, bus, cache } = setup();
    await cache.authByTokenHash('ha');
    await bus.publish({ kind: 'device', deviceId: 'dev_a', change: 'status' });
    await bus.publish({ kind: 'device', deviceId: 'dev_a', change: 'keys' });
    await cache.authByTokenHash('ha');
    expect(db.reads).toBe(1);
  });

  it('answers with the new plan at once after a plan change, here or elsewhere', async () => {
    const { db, bus, cache } = setup();
    expect((await cache.authByTokenHash('ha'))!.plan).toBe('basic');
    db.rows.ha = { ...alice, plan: 'premium' };
    cache.forgetAccount(1);
    expect((await cache.authByTokenHash('ha'))!.plan).toBe('premium');
    db.rows.ha = { ...alice, plan: 'basic' };
    await bus.publish({ kind: 'account', accountId: 1, change: 'plan' });
    expect((await cache.authByTokenHash('ha'))!.plan).toBe('basic');
  });

  it('does not keep a lookup that was in flight when the device was revoked', async () => {
    const { db, cache } = setup();
    let open!: () => void;
    db.gate = new Promise((r) => (open = r));
    const inFlight = cache.authByTokenHash('ha'); // read the row before the revocation...
    await Promise.resolve();
    delete db.rows.ha;
    cache.forgetDevice('dev_a'); // ...which lands before the answer comes back
    open();
    expect(await inFlight).toEqual(alice); // it began before the revocation
    db.gate = undefined;
    expect(await cache.authByTokenHash('ha')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps nothing when other instances hear of revocations only later', async () => {
    const { db, bus, cache } = setup({ instant: false });
    expect(await cache.authByTokenHash('ha')).toEqual(alice);
    expect(await cache.authByTokenHash('ha')).toEqual(alice);
    expect(db.reads).toBe(2);
    expect(cache.size).toBe(0);
    // Revocations are still remembered for connects in flight.
    await bus.publish({ kind: 'device', deviceId: 'dev_a', change: 'revoked' });
    expect(cache.wasRevoked('dev_a')).toBe(true);
  });

  it('holds at most maxEntries, dropping the oldest', async () => {
    const { db, cache } = setup({ maxEntries: 1 });
    await cache.authByTokenHash('ha');
    await cache.authByTokenHash('hb');
    expect(cache.size).toBe(1);
    await cache.authByTokenHash('hb');
    expect(db.reads).toBe(2);
    await cache.authByTokenHash('ha');
    expect(db.reads).toBe(3);
  });

  it('hands out nothing through which one caller changes what later callers see', async () => {
    const { cache } = setup();
    const first = (await cache.authByTokenHash('ha')) as { plan: string };
    first.plan = 'premium';
    const hit = (await cache.authByTokenHash('ha')) as { plan: string };
    expect(hit.plan).toBe('basic');
    expect(() => {
      hit.plan = 'premium';
    }).toThrow();
    expect((await cache.authByTokenHash('ha'))!.plan).toBe('basic');
  });

  it('keeps a session read with the token for that request only', async () => {
    const { db, cache } = setup();
    const session = {
      deviceId: 'dev_a',
      sessionId: 'ses_1',
      nodeId: 'node_1',
      region: 'global',
      protocol: 'wireguard' as const,
      cipher: 'ChaCha20-Poly1305' as const,
      clientLatencyMs: null,
      clientLatencyUntilMs: null,
      nodeLatencyMs: null,
      upUntilMs: null,
    };
    db.rows.ha = { ...alice, sessionAtAuth: session };
    expect((await cache.authByTokenHash('ha'))!.sessionAtAuth).toEqual(session);
    const again = await cache.authByTokenHash('ha');
    expect(db.reads).toBe(1);
    expect(again!.sessionAtAuth).toBeUndefined();
  });

  it('forgets revocations after a minute', async () => {
    const { clock, cache } = setup();
    cache.forgetDevice('dev_a');
    clock.t = 59_999;
    expect(cache.wasRevoked('dev_a')).toBe(true);
    clock.t = 60_000;
    expect(cache.wasRevoked('dev_a')).toBe(false);
  });
});
