// mtu with a fake ping: every size through, a black hole above some size (the MTU to set), nothing
// through, no ping; and the sizes tried.
import { describe, expect, it } from 'vitest';
import { checkMtu, mtuPayloads, suggestedMtu, type MtuDeps } from './mtu.js';

const signal = new AbortController().signal;
const TUNNEL = { interfaceName: 'fytmain1a2b', gateway: '10.64.0.1', mtu: 1420 };

/** A path that carries packets up to `limit` bytes (payload + 28). */
function path(limit: number, tunnel: MtuDeps['tunnel'] = TUNNEL) {
  const tried: number[] = [];
  const d: MtuDeps = {
    tunnel,
    ping: async (payload) => {
      tried.push(payload);
      return payload + 28 <= limit;
    },
  };
  return { d, tried };
}

describe('the mtu check', () => {
  it('tries the MTU’s own size and the smaller steps below it', () => {
    expect(mtuPayloads(1420)).toEqual([1392, 1280, 1200, 1000, 576]);
    expect(mtuPayloads(1500)).toEqual([1472, 1400, 1280, 1200, 1000, 576]);
    expect(mtuPayloads(1280)).toEqual([1252, 1200, 1000, 576]);
  });

  it('is ok when packets of the tunnel’s MTU cross', async () => {
    const { d, tried } = path(1500);
    expect(await checkMtu(d, signal)).toMatchObject({
      verdict: 'ok',
      summary: "packets up to 1420 bytes (the tunnel's MTU) cross the tunnel",
      fix: null,
    });
    expect(tried.sort((a, b) => b - a)).toEqual([1392, 1280, 1200, 1000, 576]);
  });

  it('names a black hole and the MTU to set when large packets are lost', async () => {
    expect(await checkMtu(path(1350).d, signal)).toMatchObject({
      verdict: 'problem',
      summary:
        "an MTU black hole: packets over 1308 bytes are lost on the way to the node (the tunnel's MTU is 1420)",
      fix: 'set a smaller MTU: netcli config set mtu 1300',
    });
    // Never below what the setting takes.
    expect((await checkMtu(path(1100).d, signal)).fix).toBe(
      'set a smaller MTU: netcli config set mtu 1280',
    );
  });

  it('is a problem when nothing crosses the tunnel', async () => {
    expect(await checkMtu(path(0).d, signal)).toMatchObject({
      verdict: 'problem',
      summary: 'nothing crossed the tunnel, not even 604-byte packets',
    });
  });

  it('warns when ping cannot be run', async () => {
    const d: MtuDeps = {
      tunnel: TUNNEL,
      ping: async () => {
        throw new Error('ENOENT');
      },
    };
    expect(await checkMtu(d, signal)).toMatchObject({ verdict: 'warning' });
  });

  it('is skipped without a tunnel, sending nothing', async () => {
    const { d, tried } = path(1500, null);
    expect((await checkMtu(d, signal)).verdict).toBe('skipped');
    expect(tried).toEqual([]);
  });

  it('suggests an MTU rounded down, within what the setting takes', () => {
    expect(suggestedMtu(1428)).toBe(1420);
    expect(suggestedMtu(1308)).toBe(1300);
    expect(suggestedMtu(1028)).toBe(1280);
    expect(suggestedMtu(1600)).toBe(1500);
  });
});
