// The cover site's address: looked up at start with a few tries, an address used as given, and
// looked up again after a failed connection no more than once per refresh interval.
import { describe, expect, it, vi } from 'vitest';
import { CoverAddress, type CoverLookup } from './cover-address.js';

const log = { warn: vi.fn(), info: vi.fn() };
const site = { host: 'cover.example', port: 443 };

function lookups(...answers: (string[] | Error)[]) {
  const asked: string[] = [];
  const lookup: CoverLookup = async (host) => {
    asked.push(host);
    const answer = answers.shift() ?? new Error('no more answers');
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { lookup, asked };
}

describe('the cover site’s address', () => {
  it('uses an address as given, without a lookup', async () => {
    const { lookup, asked } = lookups();
    const cover = await CoverAddress.start({ host: '192.0.2.7', port: 8443 }, { lookup, log });
    expect(cover.current).toEqual({ host: '192.0.2.7', port: 8443 });
    cover.connectFailed();
    expect(asked).toEqual([]);
  });

  it('looks a name up at start, trying again a bounded number of times', async () => {
    const { lookup, asked } = lookups(Object.assign(new Error('x'), { code: 'EAI_AGAIN' }), [
      '192.0.2.8',
      '192.0.2.9',
    ]);
    const cover = await CoverAddress.start(site, { lookup, log, retryMs: 1 });
    expect(cover.current).toEqual({ host: '192.0.2.8', port: 443 });
    expect(asked).toEqual(['cover.example', 'cover.example']);

    const never = lookups(new Error('a'), new Error('b'), new Error('c'), new Error('d'));
    await expect(
      CoverAddress.start(site, { lookup: never.lookup, log, retryMs: 1, attempts: 3 }),
    ).rejects.toThrow('the cover site cover.example does not resolve (c)');
    expect(never.asked).toHaveLength(3);
  });

  it('looks the name up again after a failed connection, once per refresh interval', async () => {
    let now = 1_000_000;
    const { lookup, asked } = lookups(['192.0.2.8'], ['192.0.2.20'], new Error('down'));
    const cover = await CoverAddress.start(site, {
      lookup,
      log,
      refreshMs: 30_000,
      nowMs: () => now,
    });
    cover.connectFailed();
    expect(asked).toHaveLength(1);
    now += 30_000;
    cover.connectFailed();
    cover.connectFailed();
    await vi.waitFor(() => expect(cover.current.host).toBe('192.0.2.20'));
    expect(asked).toHaveLength(2);
    // A lookup that fails keeps the address there is.
    now += 30_000;
    cover.connectFailed();
    await vi.waitFor(() => expect(asked).toHaveLength(3));
    await new Promise((r) => setTimeout(r, 10));
    expect(cover.current.host).toBe('192.0.2.20');
  });
});
