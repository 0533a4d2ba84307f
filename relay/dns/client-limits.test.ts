// The resolver's bounds per device on a fake clock: a device's rate and burst, its queries in
// flight and TCP connections, none of which touch another device's; quiet devices are forgotten,
// and a full table refuses a new device rather than grow.
import { describe, expect, it } from 'vitest';
import { ClientLimits, type ClientLimitOptions } from './client-limits.js';

const OPTIONS: ClientLimitOptions = {
  maxInFlight: 3,
  queriesPerSecond: 10,
  burst: 5,
  maxTcpConnections: 2,
  maxClients: 2,
};

function limits(o: Partial<ClientLimitOptions> = {}) {
  const clock = { now: 0 };
  return { l: new ClientLimits({ ...OPTIONS, ...o }, () => clock.now), clock };
}

const takes = (l: ClientLimits, client: string, n: number, done = true) =>
  Array.from({ length: n }, () => {
    const ok = l.takeQuery(client);
    if (ok && done) l.queryDone(client);
    return ok;
  }).filter(Boolean).length;

describe('ClientLimits', () => {
  it('gives each device its burst, then its rate, whatever another device sends', () => {
    const { l, clock } = limits();
    expect(takes(l, 'a', 100)).toBe(5);
    expect(takes(l, 'b', 3)).toBe(3);
    // 10 per second: 300 ms later three more for a.
    clock.now = 300;
    expect(takes(l, 'a', 100)).toBe(3);
    // A second of quiet fills the burst again, never beyond it.
    clock.now = 10_000;
    expect(takes(l, 'a', 100)).toBe(5);
  });

  it("holds a device's queries in flight to its share until they are done", () => {
    const { l } = limits({ burst: 100 });
    expect(takes(l, 'a', 10, false)).toBe(3);
    expect(takes(l, 'b', 1, false)).toBe(1);
    l.queryDone('a');
    expect(takes(l, 'a', 10, false)).toBe(1);
    // Done more often than taken changes nothing.
    for (let i = 0; i < 10; i++) l.queryDone('c');
    expect(l.trackedClients).toBe(2);
  });

  it("holds a device's TCP connections to its share", () => {
    const { l } = limits();
    expect([1, 2, 3].map(() => l.takeConnection('a'))).toEqual([true, true, false]);
    expect(l.takeConnection('b')).toBe(true);
    l.connectionClosed('a');
    expect(l.takeConnection('a')).toBe(true);
    expect(l.takeConnection('a')).toBe(false);
  });

  it('forgets devices that went quiet, and refuses a new one while all are busy', () => {
    const { l, clock } = limits();
    expect(l.takeQuery('a')).toBe(true);
    expect(l.takeConnection('b')).toBe(true);
    // Full (two devices): a third is refused, failing closed.
    expect(l.takeQuery('c')).toBe(false);
    expect(l.takeConnection('c')).toBe(false);
    l.queryDone('a');
    // a's bucket is full again after half a second: a goes, c comes in; b still holds a connection.
    clock.now = 500;
    expect(l.takeQuery('c')).toBe(true);
    l.queryDone('c');
    expect(l.trackedClients).toBe(2);
    clock.now = 1_000;
    l.connectionClosed('b');
    l.sweep();
    expect(l.trackedClients).toBe(0);
  });

  it('refuses bounds that are not numbers above 0', () => {
    expect(() => limits({ burst: 0 })).toThrow(/burst/);
    expect(() => limits({ queriesPerSecond: Number.NaN })).toThrow(/queriesPerSecond/);
  });
});
