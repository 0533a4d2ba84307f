// The domain's memory store keeps the promises its port makes of transactions: all or nothing,
// one at a time, and rows that leave it are copies.
import { describe, expect, it } from 'vitest';
import { MemoryStores } from './memory-stores.js';

const device = (id: string, accountId: number) => ({
  id,
  account_id: accountId,
  name: id,
  kind: 'laptop',
  wireguard_public_key: `wg-${id}`,
  ferry_public_key: `ferry-${id}`,
  token_hash: `hash-${id}`,
});

describe('MemoryStores', () => {
  it('rolls back every write of a transaction whose work throws, and keeps a returned failure', async () => {
    const stores = new MemoryStores();
    const account = (await stores.accounts.insert('1111222233334444', null, 'basic'))!;
    await expect(
      stores.transaction(async (tx) => {
        await tx.devices.insert(device('dev_a', account));
        await tx.feed.append(['dev_a']);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(stores.tables.devices).toEqual([]);
    expect((await stores.feed.bounds()).current).toBe(0);

    const kept = await stores.transaction(async (tx) => {
      await tx.devices.insert(device('dev_b', account));
      return { ok: false as const };
    });
    expect(kept).toEqual({ ok: false });
    expect(stores.tables.devices.map((d) => d.id)).toEqual(['dev_b']);
  });

  it('runs transactions one at a time, in the order they began', async () => {
    const stores = new MemoryStores();
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = stores.transaction(async () => {
      order.push('first begins');
      await gate;
      order.push('first ends');
    });
    const second = stores.transaction(async () => {
      order.push('second');
    });
    await new Promise((r) => setTimeout(r, 5));
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first begins', 'first ends', 'second']);
  });

  it('refuses a key a device already holds, as the unique column does', async () => {
    const stores = new MemoryStores();
    const account = (await stores.accounts.insert('1111222233334444', null, 'basic'))!;
    await stores.devices.insert(device('dev_a', account));
    await expect(
      stores.devices.insert({ ...device('dev_b', account), ferry_public_key: 'ferry-dev_a' }),
    ).rejects.toThrow(/unique/);
  });

  it('hands out copies: changing a row read changes nothing stored', async () => {
    const stores = new MemoryStores({
      regions: [{ id: 'r', name: 'R', area: 'a', country: null, entry: false }],
    });
    const [region] = await stores.regions.listRegions();
    region!.name = 'changed';
    expect((await stores.regions.listRegions())[0]!.name).toBe('R');
  });
});
