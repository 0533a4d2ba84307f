// ipv6-leak with fake routes and connects: no IPv6 route outside the tunnel, the probe getting
// through (or answered), dropped, silent, unroutable; and without a probe, the table's IPv6 drop.
import { describe, expect, it } from 'vitest';
import { IPV6_FIX, checkIpv6Leak, type Ipv6LeakDeps } from './ipv6-leak.js';
import type { TcpOutcome } from './node-reach.js';

const signal = new AbortController().signal;

function deps(over: Partial<Ipv6LeakDeps> & { outcome?: TcpOutcome } = {}) {
  const asked: string[] = [];
  const d: Ipv6LeakDeps = {
    connected: true,
    probe: '[2001:db8:53::2]:443',
    routeOutside: async (address) => {
      asked.push(`route ${address}`);
      return true;
    },
    connectTcp: async (address, port) => {
      asked.push(`tcp [${address}]:${port}`);
      return over.outcome ?? 'blocked';
    },
    blocksIpv6: true,
    ...over,
  };
  return { d, asked };
}

describe('the ipv6-leak check', () => {
  it('is ok without an IPv6 route outside the tunnel, and tries no connect', async () => {
    const { d, asked } = deps({ routeOutside: async () => false });
    expect(await checkIpv6Leak(d, signal)).toMatchObject({
      verdict: 'ok',
      summary: 'no IPv6 route outside the tunnel',
    });
    expect(asked).toEqual([]);
  });

  it('is a problem when a connect over IPv6 gets through, or is answered at all', async () => {
    for (const outcome of ['connected', 'refused'] as const) {
      const { d, asked } = deps({ outcome });
      const check = await checkIpv6Leak(d, signal);
      expect(check).toMatchObject({ verdict: 'problem', fix: IPV6_FIX });
      expect(check.summary).toMatch(/^IPv6 leaves outside the tunnel/);
      expect(asked).toEqual(['route 2001:db8:53::2', 'tcp [2001:db8:53::2]:443']);
    }
  });

  it('is ok when the firewall drops it, nothing answers, or there is no way out', async () => {
    for (const outcome of ['blocked', 'timeout', 'unreachable'] as const)
      expect((await checkIpv6Leak(deps({ outcome }).d, signal)).verdict).toBe('ok');
  });

  it('without a probe, goes by the table’s IPv6 drop', async () => {
    const held = deps({ probe: null });
    expect(await checkIpv6Leak(held.d, signal)).toMatchObject({ verdict: 'ok' });
    expect(held.asked).toEqual(['route 2000::1']);
    const open = deps({ probe: null, blocksIpv6: false }).d;
    expect(await checkIpv6Leak(open, signal)).toMatchObject({ verdict: 'warning', fix: IPV6_FIX });
  });

  it('is skipped when not connected', async () => {
    const { d, asked } = deps({ connected: false });
    expect((await checkIpv6Leak(d, signal)).verdict).toBe('skipped');
    expect(asked).toEqual([]);
  });
});
