// Snapshot: served from memory within its TTL, one shared load, and never stale after invalidate.
import { describe, expect, it } from 'vitest';
import { Snapshot } from './snapshot.js';

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('Snapshot', () => {
  it('loads once per TTL and reloads after it', async () => {
    let ticks = 0;
    let loads = 0;
    const s = new Snapshot(async () => ++loads, { ttlMs: 1000, now: () => ticks });
    expect(await s.get()).toBe(1);
    ticks = 999;
    expect(await s.get()).toBe(1);
    ticks = 1000;
    expect(await s.get()).toBe(2);
    expect(loads).toBe(2);
  });

  it('shares one load between concurrent callers', async () => {
    let loads = 0;
    const gate = deferred<void>();
    const s = new Snapshot(
      async () => {
        loads++;
        await gate.promise;
        return 'v';
      },
      { ttlMs: 1000, now: () => 0 },
    );
    const all = Promise.all([s.get(), s.get(), s.get()]);
    gate.resolve();
    expect(await all).toEqual(['v', 'v', 'v']);
    expect(loads).toBe(1);
  });

  it('reloads at once after invalidate', async () => {
    let value = 'old';
    const s = new Snapshot(async () => value, { ttlMs: 60_000, now: () => 0 });
    expect(await s.get()).toBe('old');
    value = 'new';
    s.invalidate();
    expect(await s.get()).toBe('new');
  });

  it('neither keeps nor shares a load that began before invalidate', async () => {
    const loads: ReturnType<typeof deferred<string>>[] = [];
    const s = new Snapshot(
      () => {
        const d = deferred<string>();
        loads.push(d);
        return d.promise;
      },
      { ttlMs: 60_000, now: () => 0 },
    );
    const before = s.get();
    s.invalidate(); // a write lands while the first load is in flight
    const after = s.get();
    expect(loads).toHaveLength(2);
    loads[0]!.resolve('read before the write');
    loads[1]!.resolve('read after the write');
    expect(await before).toBe('read before the write');
    expect(await after).toBe('read after the write');
    expect(await s.get()).toBe('read after the write');
    expect(loads).toHaveLength(2);
  });

  it('does not keep a failed load', async () => {
    let fail = true;
    const s = new Snapshot(
      async () => {
        if (fail) throw new Error('database down');
        return 'ok';
      },
      { ttlMs: 60_000, now: () => 0 },
    );
    await expect(s.get()).rejects.toThrow('database down');
    fail = false;
    expect(await s.get()).toBe('ok');
  });
});
