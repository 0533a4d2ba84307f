// The engine's bundle of fakes records every call of every seam in order, and fails on demand.
// (Each fake keeps the seams' contract: platform/os/fakes.test.ts.)
import { beforeEach, describe, expect, it } from 'vitest';

import { FerryError } from '../errors.js';
import { createFakeOs, type FakeOs } from './effects.fake.js';
import { CONTRACT_NFT, killSwitchLike } from '../../platform/os/seams.contract.js';

let os: FakeOs;
beforeEach(() => {
  os = createFakeOs();
});

describe('the fakes', () => {
  it('journal every call of every seam in order, failed ones included', async () => {
    await os.firewall.apply(CONTRACT_NFT, killSwitchLike('ferry0'));
    os.links.addExisting('ferry0');
    await os.links.setAddress('ferry0', '10.64.0.2/32');
    await os.links.setUp('ferry0', true);
    await os.routes.replace({ destination: '0.0.0.0/0', dev: 'ferry0', table: 51820 });
    await os.resolver.set(['10.64.0.1'], 'ferry0');
    await expect(os.links.setMtu('ferry1', 1420)).rejects.toThrow(FerryError);
    expect(os.journal.ops()).toEqual([
      'firewall.apply',
      'links.setAddress',
      'links.setUp',
      'routes.replace',
      'resolver.set',
      'links.setMtu',
    ]);
    expect(os.journal.entries[3]!.args).toEqual([
      { destination: '0.0.0.0/0', dev: 'ferry0', table: 51820 },
    ]);
  });

  it('keep what the journal recorded from changing afterwards', async () => {
    const route = { destination: '198.51.100.0/24', type: 'blackhole' as const, table: 9 };
    await os.routes.add(route);
    route.table = 10;
    expect(os.journal.entries[0]!.args).toEqual([{ ...route, table: 9 }]);
  });

  it('fail the next call of an operation once, as asked, changing nothing', async () => {
    os.links.failNext('setUp');
    os.links.addExisting('ferry0');
    const e = await os.links.setUp('ferry0', true).catch((err: unknown) => err);
    expect(e).toBeInstanceOf(FerryError);
    expect((e as FerryError).code).toBe('os-command-failed');
    expect((await os.links.get('ferry0'))!.up).toBe(false);
    await os.links.setUp('ferry0', true);
    expect((await os.links.get('ferry0'))!.up).toBe(true);

    const mine = new FerryError('os-command-failed', 'could not apply: nft exited with 1');
    os.firewall.failNext('apply', mine);
    await expect(os.firewall.apply(CONTRACT_NFT, [])).rejects.toBe(mine);
    expect(await os.firewall.exists(CONTRACT_NFT)).toBe(false);
  });

  it('set and restore the resolver', async () => {
    await os.resolver.set(['10.64.0.1', 'fd66:6572:7279::1'], 'ferry0');
    expect(os.resolver.servers).toEqual(['10.64.0.1', 'fd66:6572:7279::1']);
    await os.resolver.restore();
    expect(os.resolver.servers).toBeNull();
    await expect(os.resolver.set(['resolver.example'], 'ferry0')).rejects.toThrow(TypeError);
  });

  it('hold what the firewall applied, for the engine tests to inspect', async () => {
    await os.firewall.apply(CONTRACT_NFT, killSwitchLike('ferry0'));
    expect(os.firewall.table(CONTRACT_NFT)).toEqual(killSwitchLike('ferry0'));
  });
});
